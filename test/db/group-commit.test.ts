import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { loadConfig } from '../../src/config.js'
import { type Database, openDatabase } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrator.js'
import { SqliteTx } from '../../src/db/sqlite.js'
import { SqliteGroupCommit } from '../../src/db/unit-of-work.js'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js'

// SQLite only: group commit is how SQLite's single writer reaches durable throughput.
describe('SQLite group commit (performance issue)', () => {
  let testDatabase: TestDatabase
  let database: Database
  before(async () => {
    testDatabase = await createTestDatabase('sqlite')
    const config = loadConfig({
      DATABASE_URL: `sqlite:${(testDatabase.database as { file: string }).file}`,
      DATA_DIR: testDatabase.dataDir
    })
    database = openDatabase(config)
    await migrateToLatest(database.db, database.dialect)
  })
  after(async () => {
    await database.close()
    await testDatabase.drop()
  })

  const insertKey = (key: string) =>
    database.unitOfWork.run(async ({ db: trx }) => {
      await trx
        .insertInto('idempotency_keys')
        .values({ owner: 'test', key, fingerprint: 'f', status_code: 200, response: '{}', created_at: 0 })
        .execute()
      return key
    })

  const keys = async () =>
    (await database.db.selectFrom('idempotency_keys').select('key').where('owner', '=', 'test').orderBy('key').execute()).map((r) => r.key)

  it('should carry use cases that arrive together in fewer commits than use cases', async () => {
    const unit = database.unitOfWork as SqliteGroupCommit
    assert.ok(unit instanceof SqliteGroupCommit)
    const before = { ...unit.counts }
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => insertKey(`batch-${String(i).padStart(2, '0')}`)))
    assert.equal(results.length, 40)
    assert.equal(unit.counts.useCases - before.useCases, 40)
    assert.ok(unit.counts.commits - before.commits < 40, `${unit.counts.commits - before.commits} commits for 40 use cases`)
    assert.equal((await keys()).filter((k) => k.startsWith('batch-')).length, 40)
  })

  it('should roll back only the failing use case of a batch and fail only its caller', async () => {
    const outcomes = await Promise.allSettled([
      insertKey('ok-1'),
      database.unitOfWork.run(async ({ db: trx }) => {
        await trx
          .insertInto('idempotency_keys')
          .values({ owner: 'test', key: 'doomed', fingerprint: 'f', status_code: 200, response: '{}', created_at: 0 })
          .execute()
        throw new Error('use case failed after writing')
      }),
      insertKey('ok-2'),
      insertKey('ok-1') // a duplicate key: fails on the primary key inside the batch
    ])
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'fulfilled', 'rejected']
    )
    const stored = await keys()
    assert.ok(stored.includes('ok-1') && stored.includes('ok-2'))
    assert.ok(!stored.includes('doomed'))
  })

  it("should keep the savepoints' statement journal in memory on the writer connection (issue 7)", async () => {
    // A batch's savepoints journal every page they change; in a temp file that journal is written
    // page by page and kept for the whole batch, which cost half of an INSERT (BENCHMARKS.md).
    const { rows } = await sql<{ temp_store: number }>`pragma temp_store`.execute(database.db)
    assert.deepEqual(rows, [{ temp_store: 2 }])
  })

  it('should not count a commit whose begin failed (issue 26)', async () => {
    // A database of its own, closed before its one use case: its begin fails.
    const other = openDatabase(
      loadConfig({ DATABASE_URL: `sqlite:${(testDatabase.database as { file: string }).file}`, DATA_DIR: testDatabase.dataDir })
    )
    const unit = other.unitOfWork as SqliteGroupCommit
    await other.ping()
    await other.close()
    await assert.rejects(unit.run(async () => 'never run'))
    assert.deepEqual(unit.counts, { commits: 0, useCases: 0 })
  })

  it('should acknowledge a lone use case', async () => {
    assert.equal(await insertKey('alone'), 'alone')
    assert.ok((await keys()).includes('alone'))
  })

  // Statements compiled once run straight on the writer inside the group commit's transaction
  // (sqlite.ts SqliteDirect): the same transaction, the same savepoints, the same query listeners.
  describe('statements compiled once, run directly', () => {
    const insertPrepared = () =>
      database.prepare<{ key: string }, never>('test.insertKey', (db, param) =>
        db
          .insertInto('idempotency_keys')
          .values({ owner: 'test', key: param('key'), fingerprint: 'f', status_code: 200, response: '{}', created_at: 0 })
      )
    const countPrepared = () =>
      database.prepare<{ prefix: string }, { n: number }>('test.countKeys', (db, param) =>
        db
          .selectFrom('idempotency_keys')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('owner', '=', 'test')
          .where('key', 'like', param('prefix'))
      )

    it('should hand each use case a transaction that runs them on the direct path', async () => {
      let inside: unknown
      await database.unitOfWork.run(async (tx) => {
        inside = tx
      })
      assert.ok(inside instanceof SqliteTx, 'no direct path inside the transaction')
    })

    it("should see their own writes, mixed with Kysely's, and tell the query listeners", async () => {
      const insert = insertPrepared()
      const count = countPrepared()
      const seen: string[] = []
      const stop = database.queries.add((text) => seen.push(text))
      try {
        const counted = await database.unitOfWork.run(async (tx) => {
          assert.equal(await insert.run({ key: 'direct-1' }, tx), 1)
          // Kysely's path (RETURNING makes its SQL text differ from the prepared one's).
          await tx.db
            .insertInto('idempotency_keys')
            .values({ owner: 'test', key: 'direct-2', fingerprint: 'f', status_code: 200, response: '{}', created_at: 0 })
            .returning('key')
            .execute()
          return (await count.first({ prefix: 'direct-%' }, tx))?.n
        })
        assert.equal(counted, 2)
      } finally {
        stop()
      }
      assert.equal(seen.filter((text) => text === insert.sql).length, 1)
      assert.equal(seen.filter((text) => text === count.sql).length, 1)
      assert.deepEqual(
        (await keys()).filter((k) => k.startsWith('direct-')),
        ['direct-1', 'direct-2']
      )
    })

    it("should roll back a failing use case's direct writes, alone and in a batch", async () => {
      const insert = insertPrepared()
      const failing = (key: string) =>
        database.unitOfWork.run(async (tx) => {
          await insert.run({ key }, tx)
          throw new Error('use case failed after writing')
        })
      await assert.rejects(failing('undone-alone'), /use case failed/)
      const outcomes = await Promise.allSettled([
        database.unitOfWork.run((tx) => insert.run({ key: 'kept-1' }, tx)),
        failing('undone-in-batch'),
        database.unitOfWork.run((tx) => insert.run({ key: 'kept-1' }, tx)), // the primary key: fails alone
        database.unitOfWork.run((tx) => insert.run({ key: 'kept-2' }, tx))
      ])
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ['fulfilled', 'rejected', 'rejected', 'fulfilled']
      )
      const stored = await keys()
      assert.ok(stored.includes('kept-1') && stored.includes('kept-2'))
      assert.ok(!stored.includes('undone-alone') && !stored.includes('undone-in-batch'))
    })

    it('should let the reader see a direct write once it is committed', async () => {
      const insert = insertPrepared()
      const count = countPrepared()
      // The reader's snapshot of this turn is taken before the write…
      assert.equal((await count.first({ prefix: 'seen-%' }))?.n, 0)
      await database.unitOfWork.run((tx) => insert.run({ key: 'seen-1' }, tx))
      // …and the write ended it, so this read takes a new one.
      assert.equal((await count.first({ prefix: 'seen-%' }))?.n, 1)
    })
  })
})
