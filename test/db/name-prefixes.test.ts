import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Kysely, Migrator } from 'kysely'
import { loadConfig } from '../../src/config.js'
import { type Database, openDatabase } from '../../src/db/database.js'
import { migrateToLatest, migrationProvider } from '../../src/db/migrator.js'
import type { DB } from '../../src/db/schema.js'
import { DIALECTS } from '../helpers/app.js'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js'
import { databaseUrl } from '../helpers/processes.js'

// What migration 0008 promises: each 1 to 8 code-point prefix of each lower-cased name, once.
function expectedRows(id: string, first: string, last: string): string[] {
  const rows = new Set<string>()
  for (const name of [first, last]) {
    const points = [...name]
    for (let n = 1; n <= Math.min(points.length, 8); n++) rows.add(`${points.slice(0, n).join('')}|${last}|${first}|${id}`)
  }
  return [...rows].sort()
}

async function rowsOf(db: Kysely<DB>, id: string): Promise<string[]> {
  const rows = await db.selectFrom('customer_name_prefixes').selectAll().where('customer_id', '=', id).execute()
  return rows.map((r) => `${r.prefix}|${r.last_name_lc}|${r.first_name_lc}|${r.customer_id}`).sort()
}

function customer(id: string, first: string, last: string) {
  return {
    id,
    email: `${id}@example.com`,
    first_name: first,
    last_name: last,
    first_name_lc: first.toLowerCase(),
    last_name_lc: last.toLowerCase(),
    phone: '',
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

for (const dialect of DIALECTS) {
  describe(`customer name prefixes for search (D-33, migration 0008) [${dialect}]`, () => {
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

    it('should fill the prefixes of customers who existed before the migration', async () => {
      const migrator = new Migrator({ db: database.db, provider: migrationProvider(database.dialect) })
      const { error } = await migrator.migrateTo('0007_items_visible_index')
      assert.equal(error, undefined)
      await database.db
        .insertInto('customers')
        .values([customer('cus_a', 'Maximiliane', 'Anna'), customer('cus_b', 'Émile', 'Zola'), customer('cus_c', '', '')])
        .execute()
      assert.equal((await migrator.migrateTo('0009_data_key')).error, undefined)
      assert.deepEqual(await rowsOf(database.db, 'cus_a'), expectedRows('cus_a', 'maximiliane', 'anna'))
      assert.deepEqual(await rowsOf(database.db, 'cus_b'), expectedRows('cus_b', 'émile', 'zola'))
      const fields = await database.db
        .selectFrom('customer_name_prefixes')
        .select(['first_name', 'last_name', 'email'])
        .distinct()
        .where('customer_id', '=', 'cus_b')
        .execute()
      assert.deepEqual(fields, [{ first_name: 'Émile', last_name: 'Zola', email: 'cus_b@example.com' }])
      assert.deepEqual(await rowsOf(database.db, 'cus_c'), [])
    })

    it('should fold the keys of customers who existed before migration 0010, and their prefixes with them', async () => {
      await database.db
        .insertInto('customers')
        .values([customer('cus_e', 'İsmail', 'Straße'), customer('cus_f', 'John', 'Smith')])
        .execute()
      const applied = await migrateToLatest(database.db, database.dialect)
      assert.deepEqual(applied.slice(0, 2), ['0010_folded_name_keys', '0011_history_follows'])
      assert.deepEqual(await rowsOf(database.db, 'cus_b'), expectedRows('cus_b', 'emile', 'zola'))
      assert.deepEqual(await rowsOf(database.db, 'cus_e'), expectedRows('cus_e', 'ismail', 'strasse'))
      assert.deepEqual(await rowsOf(database.db, 'cus_f'), expectedRows('cus_f', 'john', 'smith'))
      assert.deepEqual(await rowsOf(database.db, 'cus_c'), [])
      const keys = await database.db
        .selectFrom('customers')
        .select(['id', 'first_name_lc', 'last_name_lc'])
        .where('id', 'in', ['cus_b', 'cus_e'])
        .orderBy('id')
        .execute()
      assert.deepEqual(keys, [
        { id: 'cus_b', first_name_lc: 'emile', last_name_lc: 'zola' },
        { id: 'cus_e', first_name_lc: 'ismail', last_name_lc: 'strasse' }
      ])
    })

    it('should keep them right on every insert and rename, whoever writes', async () => {
      await database.db
        .insertInto('customers')
        .values(customer('cus_d', 'Anna', 'Annabelle'))
        .execute()
      // "anna" starts both names: one row for it, not two.
      assert.deepEqual(await rowsOf(database.db, 'cus_d'), expectedRows('cus_d', 'anna', 'annabelle'))
      await database.db
        .updateTable('customers')
        .set({ first_name: '𝒜l', first_name_lc: '𝒜l', last_name: 'Ünal', last_name_lc: 'ünal' })
        .where('id', '=', 'cus_d')
        .execute()
      assert.deepEqual(await rowsOf(database.db, 'cus_d'), expectedRows('cus_d', '𝒜l', 'ünal'))
      // A change that leaves the names alone leaves the rows alone.
      await database.db.updateTable('customers').set({ phone: '5551234567' }).where('id', '=', 'cus_d').execute()
      assert.deepEqual(await rowsOf(database.db, 'cus_d'), expectedRows('cus_d', '𝒜l', 'ünal'))
      // The fields a hit answers with follow their changes too.
      await database.db.updateTable('customers').set({ email: 'new.d@example.com', first_name: '𝒜L' }).where('id', '=', 'cus_d').execute()
      const fields = await database.db
        .selectFrom('customer_name_prefixes')
        .select(['first_name', 'last_name', 'email'])
        .distinct()
        .where('customer_id', '=', 'cus_d')
        .execute()
      assert.deepEqual(fields, [{ first_name: '𝒜L', last_name: 'Ünal', email: 'new.d@example.com' }])
      await database.db
        .updateTable('customers')
        .set({ first_name: '', first_name_lc: '', last_name: '', last_name_lc: '' })
        .where('id', '=', 'cus_d')
        .execute()
      assert.deepEqual(await rowsOf(database.db, 'cus_d'), [])
    })
  })
}
