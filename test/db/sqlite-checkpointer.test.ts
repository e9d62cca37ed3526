import assert from 'node:assert/strict'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Worker } from 'node:worker_threads'
import BetterSqlite3 from 'better-sqlite3'
import { loadConfig } from '../../src/config.js'
import { type Database, openDatabase } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrator.js'
import { openSqliteConnection } from '../../src/db/sqlite.js'
import { SqliteCheckpointer } from '../../src/db/sqlite-checkpointer.js'
import type { SqliteGroupCommit } from '../../src/db/unit-of-work.js'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js'

/** Waits until `done` holds; 20 s is far beyond what it takes on a loaded machine (milliseconds). */
async function until(done: () => boolean): Promise<void> {
  const giveUp = Date.now() + 20_000
  while (!done()) {
    if (Date.now() > giveUp) assert.fail('the checkpointer never got there')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const autocheckpoint = (connection: BetterSqlite3.Database) => connection.pragma('wal_autocheckpoint', { simple: true })

// SQLite only: WAL checkpoints off the event loop (issue 7, BENCHMARKS.md).
describe('SQLite WAL checkpoints in a worker thread (performance issue)', () => {
  let testDatabase: TestDatabase
  let database: Database
  let file: string
  before(async () => {
    testDatabase = await createTestDatabase('sqlite')
    file = (testDatabase.database as { file: string }).file
    database = openDatabase(loadConfig({ DATABASE_URL: `sqlite:${file}`, DATA_DIR: testDatabase.dataDir }))
    await migrateToLatest(database.db, database.dialect)
  })
  after(async () => {
    await database.close()
    await testDatabase.drop()
  })

  it('should copy committed writes into the database file after commits, off the writer', async () => {
    const unit = database.unitOfWork as SqliteGroupCommit
    const checkpointer = unit.checkpointer
    assert.ok(checkpointer instanceof SqliteCheckpointer)
    const runs = checkpointer.counts.runs
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        database.unitOfWork.run(({ db: trx }) =>
          trx
            .insertInto('idempotency_keys')
            .values({ owner: 'test', key: `wal-${i}`, fingerprint: 'f', status_code: 200, response: '{}', created_at: 0 })
            .execute()
        )
      )
    )
    // Committed; the checkpoint after the last commit has run once the worker is idle again.
    await until(() => checkpointer.counts.runs > runs && checkpointer.idle)
    assert.equal(checkpointer.counts.failures, 0)
    // The database file alone, without its WAL, holds the writes now.
    const copy = path.join(testDatabase.dataDir, 'copy.db')
    fs.copyFileSync(file, copy)
    const probe = new BetterSqlite3(copy, { readonly: true })
    try {
      assert.deepEqual(probe.prepare(`select count(*) as n from idempotency_keys where key like 'wal-%'`).get(), { n: 20 })
    } finally {
      probe.close()
    }
  })

  it('should leave the writer its own automatic checkpoint only as a far bound while the worker runs', async () => {
    const writer = openSqliteConnection(file, 'NORMAL')
    const checkpointer = new SqliteCheckpointer(writer, 'NORMAL')
    try {
      assert.equal(autocheckpoint(writer), SqliteCheckpointer.WRITER_BOUND)
    } finally {
      await checkpointer.close()
    }
    // Closed: the writer checkpoints on its own again, at SQLite's default.
    assert.equal(autocheckpoint(writer), SqliteCheckpointer.WRITER_DEFAULT)
    assert.equal(checkpointer.counts.failures, 0)
    writer.close()
  })

  it('should give the checkpoints back to the writer when the worker cannot start', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'so-checkpoint-'))
    try {
      const gone = path.join(dir, 'gone.db')
      const writer = openSqliteConnection(gone, 'FULL')
      // The worker opens the file by name and only if it exists; the writer keeps its open file.
      fs.rmSync(gone)
      const checkpointer = new SqliteCheckpointer(writer, 'FULL')
      await until(() => checkpointer.counts.failures > 0 && autocheckpoint(writer) === SqliteCheckpointer.WRITER_DEFAULT)
      // A commit after that asks nothing of the gone worker.
      checkpointer.committed()
      assert.equal(checkpointer.counts.runs, 0)
      await checkpointer.close()
      writer.close()
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it('should count a checkpoint that finds another one running as busy, and checkpoint again after the next commit', async () => {
    const writer = openSqliteConnection(file, 'NORMAL')
    const checkpointer = new SqliteCheckpointer(writer, 'NORMAL', 0)
    const reader = new BetterSqlite3(file, { readonly: true })
    const probe = new BetterSqlite3(file)
    let holder: Worker | undefined
    try {
      writer
        .prepare(
          `insert into idempotency_keys (owner, key, fingerprint, status_code, response, created_at) values ('test', 'busy-1', 'f', 200, '{}', 0)`
        )
        .run()
      // A reader inside the WAL, and another connection's RESTART checkpoint waiting for it to
      // leave: that checkpoint holds SQLite's checkpoint lock all the while it waits.
      reader.exec('begin')
      reader.prepare('select count(*) from idempotency_keys').get()
      holder = new Worker(
        `const { workerData, parentPort } = require('node:worker_threads')
         const db = new (require(workerData.driver))(workerData.file)
         db.pragma('busy_timeout = 20000')
         parentPort.postMessage(db.pragma('wal_checkpoint(RESTART)')[0])
         db.close()`,
        { eval: true, workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3'), file } }
      )
      const restarted = new Promise<{ busy: number }>((resolve, reject) => {
        holder!.once('message', resolve)
        holder!.once('error', reject)
      })
      // Once a PASSIVE checkpoint of this thread's own finds the lock taken, the worker's will too.
      const passiveIsBusy = () => (probe.pragma('wal_checkpoint(PASSIVE)') as { busy: number }[])[0]!.busy === 1
      await until(passiveIsBusy)
      checkpointer.committed()
      await until(() => checkpointer.counts.busy > 0 && checkpointer.idle)
      assert.deepEqual(checkpointer.counts, { runs: 0, busy: 1, walFrames: 0, failures: 0 })
      // The reader leaves: the other checkpoint ends, and the next commit's checkpoint runs.
      reader.exec('commit')
      assert.equal((await restarted).busy, 0)
      writer
        .prepare(
          `insert into idempotency_keys (owner, key, fingerprint, status_code, response, created_at) values ('test', 'busy-2', 'f', 200, '{}', 0)`
        )
        .run()
      checkpointer.committed()
      await until(() => checkpointer.counts.runs > 0 && checkpointer.idle)
      assert.equal(checkpointer.counts.busy, 1)
      assert.equal(checkpointer.counts.failures, 0)
    } finally {
      if (reader.inTransaction) reader.exec('commit')
      await holder?.terminate()
      await checkpointer.close()
      probe.close()
      reader.close()
      writer.close()
    }
  })
})
