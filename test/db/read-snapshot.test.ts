import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { setTimeout as delay, setImmediate as nextTurn } from 'node:timers/promises'
import { loadConfig } from '../../src/config.js'
import { type Database, openDatabase } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrator.js'
import type { SqliteGroupCommit } from '../../src/db/unit-of-work.js'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js'

/** The keys of an owner, read as the app reads: a statement compiled once, outside any transaction. */
const keysOf = (db: Database) =>
  db.prepare<{ owner: string }, { key: string }>('test.keysOf', (db, param) =>
    db.selectFrom('idempotency_keys').select('key').where('owner', '=', param('owner')).orderBy('key')
  )

// SQLite only: PostgreSQL has no read-only connection whose snapshots could be shared.
describe('SQLite read snapshot per turn of the event loop (performance issue)', () => {
  let testDatabase: TestDatabase
  let database: Database
  // A second connection of its own, as the CLI or another process has.
  let other: Database
  before(async () => {
    testDatabase = await createTestDatabase('sqlite')
    const config = loadConfig({
      DATABASE_URL: `sqlite:${(testDatabase.database as { file: string }).file}`,
      DATA_DIR: testDatabase.dataDir
    })
    database = openDatabase(config)
    await migrateToLatest(database.db, database.dialect)
    other = openDatabase(config)
  })
  after(async () => {
    await other.close()
    await database.close()
    await testDatabase.drop()
  })

  const keysRead = async (owner: string) => (await keysOf(database).rows({ owner })).map((r) => r.key)
  const insertWith = (db: Database, owner: string, key: string) =>
    db.db.insertInto('idempotency_keys').values({ owner, key, fingerprint: 'f', status_code: 200, response: '{}', created_at: 0 }).execute()

  it('should show this process its own write to a read in the same turn', async () => {
    assert.deepEqual(await keysRead('own'), [])
    await insertWith(database, 'own', 'a')
    assert.deepEqual(await keysRead('own'), ['a'])
    await database.unitOfWork.run(({ db: trx }) =>
      trx
        .insertInto('idempotency_keys')
        .values({ owner: 'own', key: 'b', fingerprint: 'f', status_code: 200, response: '{}', created_at: 0 })
        .execute()
    )
    assert.deepEqual(await keysRead('own'), ['a', 'b'])
  })

  it("should read one snapshot within a turn and another connection's commit from the next turn on", async () => {
    assert.deepEqual(await keysRead('other'), [])
    // Committed by another connection after this turn's snapshot was taken: not seen in this turn…
    await insertWith(other, 'other', 'x')
    assert.deepEqual(await keysRead('other'), [])
    // …and seen in the next.
    await nextTurn()
    assert.deepEqual(await keysRead('other'), ['x'])
  })

  it("should move data_version with another connection's commit by the next turn", async () => {
    const version = database.dataVersion
    assert.ok(version !== null)
    await nextTurn()
    const first = version()
    await insertWith(other, 'version', 'v')
    // Same turn: the snapshot and its version stay as they were.
    assert.equal(version(), first)
    await nextTurn()
    assert.notEqual(version(), first)
  })

  it('should end the turn’s snapshot so a checkpoint can pass it', async () => {
    // Each connection's checkpointer (a worker thread) checkpoints shortly after its commits (the
    // first test's): one still running makes the checkpoint below busy for another reason. Nothing
    // here commits through the group commit, so none starts again once both are idle.
    for (const db of [database, other]) {
      const checkpointer = (db.unitOfWork as SqliteGroupCommit).checkpointer
      for (let waited = 0; checkpointer !== undefined && !checkpointer.idle && waited < 5000; waited += 10) await delay(10)
    }
    await keysRead('checkpoint')
    await nextTurn()
    await insertWith(other, 'checkpoint', 'c')
    // With no reader inside the WAL, a full checkpoint copies every frame back (busy = 0).
    const [result] = (
      await other.db.executeQuery<{ busy: number; log: number; checkpointed: number }>({
        sql: 'pragma wal_checkpoint(truncate)',
        parameters: [],
        query: { kind: 'RawNode' } as never,
        queryId: { queryId: 'checkpoint' }
      })
    ).rows
    assert.equal(result?.busy, 0)
  })

  it('should close cleanly with a snapshot open', async () => {
    const config = loadConfig({
      DATABASE_URL: `sqlite:${(testDatabase.database as { file: string }).file}`,
      DATA_DIR: testDatabase.dataDir
    })
    const third = openDatabase(config)
    assert.deepEqual(await keysOf(third).rows({ owner: 'own' }), [{ key: 'a' }, { key: 'b' }])
    await third.close()
    // The turn ends after the close: ending the snapshot then must not throw.
    await nextTurn()
  })
})
