import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Kysely, Migrator } from 'kysely'
import { loadConfig } from '../../src/config.js'
import { type Database, openDatabase } from '../../src/db/database.js'
import { migrateToLatest, migrationProvider } from '../../src/db/migrator.js'
import { DIALECTS } from '../helpers/app.js'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js'
import { databaseUrl } from '../helpers/processes.js'

/** An order with one history entry, in the schema before migration 0017 (typed by no code type); answers its id. */
async function insertOrderWithEntry(db: Kysely<any>): Promise<number> {
  await db
    .insertInto('customers')
    .values({
      id: 'cus_old',
      email: 'old@example.com',
      first_name: 'Old',
      last_name: 'Entry',
      first_name_lc: 'old',
      last_name_lc: 'entry',
      ...{ phone: '', preference: '', street: '', apartment: '', city: 'New York', state: 'NY', zip: '10001' },
      payment_customer_id: '',
      created_at: 0,
      updated_at: 0
    })
    .execute()
  const service = await db
    .insertInto('services')
    .values({ public_id: 'svc_old', name: 'Old', name_key: 'old', image_title: '', step_count: 1, created_at: 0 })
    .returning('id')
    .executeTakeFirstOrThrow()
  const step = await db
    .insertInto('service_steps')
    .values({ service_id: service.id, position: 1, description: 'Taken', button_title: 'Take', events: '', order_count: 1 })
    .returning('id')
    .executeTakeFirstOrThrow()
  const order = await db
    .insertInto('orders')
    .values({
      public_id: 'trx_old',
      code: 12_345_678,
      customer_id: 'cus_old',
      service_id: service.id,
      step_id: step.id,
      status: 'open',
      ...{ pickup_at: 0, delivery_at: 0, note: '', created_at: 0, updated_at: 0 }
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  await db
    .insertInto('order_history')
    .values({ order_id: order.id, at: 0, type: 'created', position: 1, description: 'Taken', actor: 'admin' })
    .execute()
  return Number(order.id)
}

for (const dialect of DIALECTS) {
  describe(`history entries name who did it (D-17, migration 0017) [${dialect}]`, () => {
    let testDatabase: TestDatabase
    let database: Database
    before(async () => {
      testDatabase = await createTestDatabase(dialect)
      database = openDatabase(loadConfig({ DATABASE_URL: databaseUrl(testDatabase), DATA_DIR: testDatabase.dataDir }))
    })
    after(async () => {
      await database?.close()
      await testDatabase?.drop()
    })

    it('should keep "" as `by` of the entries written before it, and of an insert that names no one', async () => {
      const migrator = new Migrator({ db: database.db, provider: migrationProvider(database.dialect) })
      assert.equal((await migrator.migrateTo('0013_constraint_names')).error, undefined)
      const orderId = await insertOrderWithEntry(database.db)
      assert.ok((await migrateToLatest(database.db, database.dialect)).includes('0017_history_by'))
      await database.db
        .insertInto('order_history')
        .values({ order_id: orderId, at: 1, type: 'moved', position: 1, description: 'Taken', actor: 'staff' })
        .execute()
      const entries = await database.db
        .selectFrom('order_history')
        .select(['type', 'actor', 'by'])
        .where('order_id', '=', orderId)
        .orderBy('id')
        .execute()
      assert.deepEqual(entries, [
        { type: 'created', actor: 'admin', by: '' },
        { type: 'moved', actor: 'staff', by: '' }
      ])
    })
  })
}
