import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Kysely, Migrator } from 'kysely'
import { loadConfig } from '../../src/config.js'
import { type Database, openDatabase } from '../../src/db/database.js'
import { MIGRATION_NAMES, migrateToLatest, migrationProvider } from '../../src/db/migrator.js'
import { DIALECTS } from '../helpers/app.js'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js'
import { databaseUrl } from '../helpers/processes.js'

const STEP_TIMING = '0015_step_timing'

/** An order row as it was before the migration, and its history entries: [at, type, description]. */
const ORDERS: Array<{ id: number; created_at: number; history: Array<[number, string, string]>; entered: number }> = [
  // Only its creation: that entry's time.
  { id: 1, created_at: 1000, history: [[1500, 'created', 'Received']], entered: 1500 },
  // Moved, then its note changed, closed and reopened, and a tracked entry: the move.
  {
    id: 2,
    created_at: 1000,
    history: [
      [1000, 'created', 'Received'],
      [2000, 'moved', 'Washed'],
      [2000, 'tracked', 'Washed'],
      [3000, 'updated', 'Changed note'],
      [4000, 'closed', 'Washed'],
      [5000, 'reopened', 'Washed']
    ],
    entered: 2000
  },
  // Put at another service's first step by an update, then its times and note changed: the service change.
  {
    id: 3,
    created_at: 1000,
    history: [
      [1000, 'created', 'Received'],
      [6000, 'updated', 'Taken in'],
      [7000, 'updated', 'Changed pickup_timestamp, delivery_timestamp, note']
    ],
    entered: 6000
  },
  // No history at all: its creation.
  { id: 4, created_at: 900, history: [], entered: 900 }
]

for (const dialect of DIALECTS) {
  describe(`when existing orders entered their step (D-48, migration ${STEP_TIMING}) [${dialect}]`, () => {
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

    it("should set step_entered_at from each order's latest step entry, else its creation, and leave steps without expected minutes", async () => {
      const migrator = new Migrator({ db: database.db, provider: migrationProvider(database.dialect) })
      const previous = MIGRATION_NAMES[MIGRATION_NAMES.indexOf(STEP_TIMING) - 1]!
      assert.equal((await migrator.migrateTo(previous)).error, undefined)
      // Written as the schema then was: no step_entered_at, no expected_minutes.
      const db = database.db as unknown as Kysely<any>
      await db
        .insertInto('customers')
        .values({
          id: 'cus_1',
          email: 'a@example.com',
          first_name: 'A',
          last_name: 'B',
          first_name_lc: 'a',
          last_name_lc: 'b',
          phone: '',
          preference: '',
          street: '',
          apartment: '',
          city: '',
          state: '',
          zip: '10001',
          password_hash: null,
          payment_customer_id: '',
          card_ciphertext: null,
          card_last4: null,
          card_expiration: null,
          created_at: 0,
          updated_at: 0
        })
        .execute()
      await db
        .insertInto('services')
        .values({ id: 1, public_id: 'svc_1', name: 'S', name_key: 's', image_title: 's', step_count: 1, created_at: 0 })
        .execute()
      await db
        .insertInto('service_steps')
        .values({ id: 1, service_id: 1, position: 1, description: 'Received', button_title: '', events: '', order_count: ORDERS.length })
        .execute()
      for (const order of ORDERS) {
        await db
          .insertInto('orders')
          .values({
            id: order.id,
            public_id: `trx_${order.id}`,
            code: 10_000_000 + order.id,
            customer_id: 'cus_1',
            service_id: 1,
            step_id: 1,
            status: 'open',
            pickup_at: 1_793_344_500,
            delivery_at: 1_793_430_900,
            note: '',
            created_at: order.created_at,
            updated_at: order.created_at
          })
          .execute()
        for (const [at, type, description] of order.history) {
          await db.insertInto('order_history').values({ order_id: order.id, at, type, position: 1, description, actor: 'staff' }).execute()
        }
      }

      const applied = await migrateToLatest(database.db, database.dialect)
      assert.equal(applied[0], STEP_TIMING)
      const rows = await database.db.selectFrom('orders').select(['id', 'step_entered_at']).orderBy('id').execute()
      assert.deepEqual(
        rows.map((row) => [Number(row.id), Number(row.step_entered_at)]),
        ORDERS.map((order) => [order.id, order.entered])
      )
      const step = await database.db.selectFrom('service_steps').select(['expected_minutes', 'texts_version']).executeTakeFirstOrThrow()
      assert.deepEqual(step, { expected_minutes: null, texts_version: 0 })
    })
  })
}
