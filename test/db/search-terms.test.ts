import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Kysely, Migrator, sql } from 'kysely'
import { loadConfig } from '../../src/config.js'
import { type Database, openDatabase } from '../../src/db/database.js'
import { migrateToLatest, migrationProvider } from '../../src/db/migrator.js'
import type { DB } from '../../src/db/schema.js'
import { DIALECTS } from '../helpers/app.js'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js'
import { databaseUrl } from '../helpers/processes.js'

interface Customer {
  id: string
  first: string
  last: string
  email: string
  phone: string
}

/**
 * What migration 0016 promises, from the keys as stored: each 1 to 8 code-point prefix of each name
 * word (split at spaces, and at hyphens as well), of the e-mail (a backtick as an apostrophe), and
 * 3 to 8 of each suffix of the phone digits, once per prefix and term.
 */
function expectedRows(c: Customer): string[] {
  const key = `${c.last}\u0001${c.first}\u0001${c.id}`
  const names = `${c.first} ${c.last}`
  const terms = new Map<string, number>()
  for (const word of [...names.split(' '), ...names.split(/[ -]/), c.email.replaceAll('`', "'")]) if (word !== '') terms.set(word, 1)
  for (let i = 0; i + 3 <= c.phone.length; i++) terms.set(c.phone.slice(i), 3)
  const rows = new Set<string>()
  for (const [term, shortest] of terms) {
    const points = [...term]
    for (let n = shortest; n <= Math.min(points.length, 8); n++) rows.add(`${points.slice(0, n).join('')}|${key}|${term}|${c.id}`)
  }
  return [...rows].sort()
}

async function rowsOf(db: Kysely<DB>, id: string): Promise<string[]> {
  const rows = await db.selectFrom('customer_search_terms').selectAll().where('customer_id', '=', id).execute()
  return rows.map((r) => `${r.prefix}|${r.order_key}|${r.term}|${r.customer_id}`).sort()
}

function row(c: Customer, keys: { first_name_lc: string; last_name_lc: string }) {
  return {
    id: c.id,
    email: c.email,
    first_name: c.first,
    last_name: c.last,
    ...keys,
    phone: c.phone,
    preference: '',
    street: '',
    apartment: '',
    city: 'New York',
    state: 'NY',
    zip: '10001',
    password_hash: null,
    payment_customer_id: '',
    card_ciphertext: null,
    card_last4: null,
    card_expiration: null,
    created_at: 0,
    updated_at: 0
  }
}

const plain = (c: Customer) => row(c, { first_name_lc: c.first.toLowerCase(), last_name_lc: c.last.toLowerCase() })

for (const dialect of DIALECTS) {
  describe(`customer search terms (D-33, migration 0016) [${dialect}]`, () => {
    let testDatabase: TestDatabase
    let database: Database
    before(async () => {
      testDatabase = await createTestDatabase(dialect)
      const config = loadConfig({ DATABASE_URL: databaseUrl(testDatabase), DATA_DIR: testDatabase.dataDir })
      database = openDatabase(config)
    })
    after(async () => {
      await database?.close()
      await testDatabase?.drop()
    })

    it('should fill the terms of customers who existed before, from keys folded by 0010, and drop what 0008 kept', async () => {
      const migrator = new Migrator({ db: database.db, provider: migrationProvider(database.dialect) })
      assert.equal((await migrator.migrateTo('0009_data_key')).error, undefined)
      const before: Customer[] = [
        { id: 'cus_a', first: 'Olga', last: 'Van Der Berg', email: 'olga.v@example.com', phone: '2125550123' },
        { id: 'cus_b', first: 'Émile', last: 'Smith-Jones', email: 'k`e@example.com', phone: '' },
        { id: 'cus_c', first: '', last: '', email: 'c@example.com', phone: '1234567' }
      ]
      await database.db.insertInto('customers').values(before.map(plain)).execute()
      const applied = await migrateToLatest(database.db, database.dialect)
      assert.ok(applied.includes('0010_folded_name_keys') && applied.includes('0016_customer_search_terms'), applied.join())
      assert.deepEqual(await rowsOf(database.db, 'cus_a'), expectedRows({ ...before[0]!, first: 'olga', last: 'van der berg' }))
      assert.deepEqual(await rowsOf(database.db, 'cus_b'), expectedRows({ ...before[1]!, first: 'emile', last: 'smith-jones' }))
      assert.deepEqual(await rowsOf(database.db, 'cus_c'), expectedRows(before[2]!))
      // Spot checks of the rule itself, beside the model above.
      const olga = await rowsOf(database.db, 'cus_a')
      for (const expected of ['berg|', 'der|', 'olga.v@e|', '555|', '5550123|', '21255501|'])
        assert.ok(
          olga.some((r) => r.startsWith(expected)),
          expected
        )
      assert.ok(!olga.some((r) => r.startsWith('12|')), 'a phone prefix of fewer than 3 digits')
      const gone = await sql<{ n: number }>`select count(*) as n from ${sql.table(
        dialect === 'sqlite' ? 'sqlite_master' : 'pg_class'
      )} where ${sql.ref(dialect === 'sqlite' ? 'name' : 'relname')} in ('customer_name_prefixes', 'customers_first_name_search')`.execute(
        database.db
      )
      assert.equal(Number(gone.rows[0]!.n), 0)
    })

    it('should keep them right on every insert and change, whoever writes', async () => {
      const d: Customer = { id: 'cus_d', first: 'anna', last: 'annabelle', email: 'anna@example.com', phone: '5555555555' }
      await database.db.insertInto('customers').values(plain(d)).execute()
      // "anna" starts three terms: a row for each term, and the repeated digits one row per suffix.
      assert.deepEqual(await rowsOf(database.db, 'cus_d'), expectedRows(d))
      const renamed = { ...d, first: '𝒜l', last: 'ünal o-neil' }
      await database.db
        .updateTable('customers')
        .set({ first_name: '𝒜l', first_name_lc: '𝒜l', last_name: 'Ünal O-Neil', last_name_lc: 'ünal o-neil' })
        .where('id', '=', 'cus_d')
        .execute()
      assert.deepEqual(await rowsOf(database.db, 'cus_d'), expectedRows(renamed))
      // A change that leaves the terms alone leaves the rows alone.
      await database.db.updateTable('customers').set({ preference: 'No starch', first_name: '𝒜L' }).where('id', '=', 'cus_d').execute()
      assert.deepEqual(await rowsOf(database.db, 'cus_d'), expectedRows(renamed))
      const moved = { ...renamed, email: 'new.d@example.com', phone: '7185550000' }
      await database.db.updateTable('customers').set({ email: moved.email, phone: moved.phone }).where('id', '=', 'cus_d').execute()
      assert.deepEqual(await rowsOf(database.db, 'cus_d'), expectedRows(moved))
      await database.db
        .updateTable('customers')
        .set({ first_name: '', first_name_lc: '', last_name: '', last_name_lc: '', phone: '' })
        .where('id', '=', 'cus_d')
        .execute()
      assert.deepEqual(await rowsOf(database.db, 'cus_d'), expectedRows({ ...moved, first: '', last: '', phone: '' }))
    })
  })
}
