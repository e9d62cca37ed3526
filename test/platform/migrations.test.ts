import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { loadConfig } from '../../src/config.js'
import { openDatabase } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrator.js'
import { DIALECTS } from '../helpers/app.js'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js'
import { Child, databaseUrl } from '../helpers/processes.js'

const ALL = [
  '0001_platform',
  '0002_customers',
  '0003_catalogue',
  '0004_orders',
  '0005_outbox',
  '0006_tracking',
  '0007_items_visible_index',
  '0008_customer_name_prefixes',
  '0009_data_key',
  '0010_folded_name_keys',
  '0011_history_follows',
  '0012_health_probe',
  '0013_constraint_names',
  '0014_staff',
  '0015_step_timing',
  '0016_customer_search_terms',
  '0017_history_by'
]
const PROCESSES = 3

for (const dialect of DIALECTS) {
  describe(`migrations from several processes at once (D-04) [${dialect}]`, () => {
    let database: TestDatabase
    const children: Child[] = []

    before(async () => {
      database = await createTestDatabase(dialect)
    })

    after(async () => {
      for (const child of children) await child.stop()
      await database?.drop()
    })

    it('should let every process migrate the same fresh database, each migration applied once', async () => {
      const env = { DATABASE_URL: databaseUrl(database), DATA_DIR: database.dataDir }
      for (let i = 0; i < PROCESSES; i++) children.push(new Child('test/platform/support/migrate-when-told.ts', [], env))
      // All are connected and waiting; then all are told to go at the same moment.
      await Promise.all(children.map((child) => child.waitForLine((line) => line === 'ready')))
      for (const child of children) child.write('go\n')
      const codes = await Promise.all(children.map((child) => child.exit(90_000)))
      const outcomes = children.map(
        (child) => JSON.parse(child.stdout.find((line) => line.startsWith('{'))!) as { applied?: string[]; error?: string }
      )
      assert.deepEqual(
        codes,
        children.map(() => 0),
        JSON.stringify(outcomes)
      )
      // Between them they applied every migration exactly once.
      const applied = outcomes.flatMap((outcome) => outcome.applied ?? [])
      assert.deepEqual([...applied].sort(), ALL)

      const config = loadConfig(env)
      const db = openDatabase(config)
      try {
        const rows = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db.db)
        assert.deepEqual(
          rows.rows.map((r) => r.name),
          ALL
        )
        // And a later run has nothing to do.
        assert.deepEqual(await migrateToLatest(db.db, db.dialect), [])
      } finally {
        await db.close()
      }
    })
  })

  // PostgreSQL only: better-sqlite3 is synchronous, so two connections in one process would block
  // each other's event loop; SQLite is covered by the processes above.
  if (dialect !== 'postgres') continue
  describe(`migrations racing on two connections of one process (D-04) [${dialect}]`, () => {
    let database: TestDatabase

    before(async () => {
      database = await createTestDatabase(dialect)
    })

    after(async () => {
      await database?.drop()
    })

    it('should let two migrateToLatest calls on two connections both succeed', async () => {
      const config = loadConfig({ DATABASE_URL: databaseUrl(database), DATA_DIR: database.dataDir })
      const first = openDatabase(config)
      const second = openDatabase(config)
      try {
        const [a, b] = await Promise.all([migrateToLatest(first.db, first.dialect), migrateToLatest(second.db, second.dialect)])
        assert.deepEqual([...a, ...b].sort(), ALL)
      } finally {
        await first.close()
        await second.close()
      }
    })
  })
}
