import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { sql } from 'kysely'
import { openDatabase } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrator.js'
import { createTestDatabase, testDialects } from '../helpers/databases.js'

describe('PostgreSQL constraint names (issue 26)', async () => {
  const dialects = await testDialects()
  it('should name every constraint of the schema explicitly, none by a default name', {
    skip: !dialects.includes('postgres')
  }, async () => {
    const test = await createTestDatabase('postgres')
    const database = openDatabase({ database: test.database, sqliteSynchronous: 'NORMAL', databasePoolMax: 2, statementTimeoutMs: 0 })
    try {
      await migrateToLatest(database.db, database.dialect)
      const rows = await sql<{ table: string; name: string; type: string }>`
        select conrelid::regclass::text as "table", conname as "name", contype as "type"
        from pg_constraint where connamespace = 'public'::regnamespace and conrelid::regclass::text not like 'kysely_%'`.execute(
        database.db
      )
      const names = rows.rows.map((row) => row.name)
      assert.ok(names.includes('orders_code_unique'), 'the constraint a drawn code clashes with (D-50) is orders_code_unique')
      // Checks keep the default `_check` names; keys and references are named by migration 0013.
      const defaults = rows.rows.filter((row) => row.type !== 'c' && /_(pkey|key|fkey)$/.test(row.name))
      assert.deepEqual(defaults, [])
    } finally {
      await database.close()
      await test.drop()
    }
  })
})
