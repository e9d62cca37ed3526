import assert from 'node:assert/strict'
import net from 'node:net'
import { after, before, describe, it } from 'node:test'
import { loadConfig } from '../../src/config.js'
import { type Database, openDatabase } from '../../src/db/database.js'
import { postgresDialect, sqliteDialect } from '../../src/db/dialect.js'
import { migrateToLatest } from '../../src/db/migrator.js'
import { DIALECTS } from '../helpers/app.js'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js'
import { databaseUrl } from '../helpers/processes.js'

// Issue 26: database errors are told apart by SQLSTATE, SQLite result codes and our own codes for
// the driver's failures, never by their English text (D-21: 503 `unavailable`).

const hasCode = (code: string) => (error: unknown) => (error as { code?: unknown }).code === code

for (const dialect of DIALECTS) {
  describe(`a closed database [${dialect}] (issue 26)`, () => {
    let test: TestDatabase
    let database: Database
    before(async () => {
      test = await createTestDatabase(dialect)
      database = openDatabase(loadConfig({ DATABASE_URL: databaseUrl(test), DATA_DIR: test.dataDir }))
      await migrateToLatest(database.db, database.dialect)
    })
    after(async () => {
      await database.close()
      await test.drop()
    })

    it('should refuse statements, use cases and Kysely queries with DATABASE_CLOSED, which is unavailable (503)', async () => {
      const keys = database.prepare<{ owner: string }, { key: string }>('test.keys', (db, param) =>
        db.selectFrom('idempotency_keys').select('key').where('owner', '=', param('owner'))
      )
      assert.deepEqual(await keys.rows({ owner: 'nobody' }), [])
      await database.close()
      for (const attempt of [
        () => keys.rows({ owner: 'nobody' }),
        () => database.unitOfWork.run(async (tx) => keys.rows({ owner: 'nobody' }, tx)),
        () => database.db.selectFrom('idempotency_keys').selectAll().execute(),
        () => database.ping()
      ]) {
        await assert.rejects(attempt(), (error: unknown) => hasCode('DATABASE_CLOSED')(error) && database.dialect.isUnavailable(error))
      }
      // Closing twice is harmless.
      await database.close()
    })
  })
}

describe('PostgreSQL that cannot be reached (issue 26)', { skip: !DIALECTS.includes('postgres') && 'PostgreSQL is not reachable' }, () => {
  let port = 0
  let database: Database
  before(async () => {
    // A port nobody listens on: every connect is refused.
    const server = net.createServer()
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as net.AddressInfo).port
    await new Promise((resolve) => server.close(resolve))
    database = openDatabase(loadConfig({ DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/nowhere`, DATABASE_POOL_TIMEOUT_MS: '2000' }))
  })
  after(() => database.close())

  it('should wrap a refused connect into DATABASE_UNAVAILABLE with its cause, for reads, use cases and Kysely', async () => {
    const one = database.prepare<Record<string, never>, { one: number }>('test.one', (db) => db.selectNoFrom((eb) => eb.lit(1).as('one')))
    for (const attempt of [
      () => one.rows({}),
      () => database.unitOfWork.run(async (tx) => one.rows({}, tx)),
      () => database.db.selectNoFrom((eb) => eb.lit(1).as('one')).execute()
    ]) {
      await assert.rejects(attempt(), (error: unknown) => {
        assert.ok(hasCode('DATABASE_UNAVAILABLE')(error), String(error))
        assert.equal(((error as Error).cause as { code?: unknown }).code, 'ECONNREFUSED')
        return postgresDialect.isUnavailable(error)
      })
    }
  })
})

describe('classifying database errors (issue 26)', () => {
  it('should go by code, not by message', () => {
    for (const message of ['Connection terminated unexpectedly', 'timeout exceeded when trying to connect', 'Query read timeout']) {
      assert.equal(postgresDialect.isUnavailable(new Error(message)), false, message)
    }
    assert.equal(sqliteDialect.isUnavailable(new TypeError('The database connection is not open')), false)
    assert.equal(postgresDialect.isUnavailable(Object.assign(new Error('any text'), { code: '57P01' })), true)
    assert.equal(postgresDialect.isUnavailable(Object.assign(new Error('any text'), { code: '23505' })), false)
    assert.equal(sqliteDialect.isUnavailable(Object.assign(new Error('any text'), { code: 'SQLITE_FULL' })), true)
    assert.equal(postgresDialect.isUniqueViolation(Object.assign(new Error('any text'), { code: '23505' })), true)
  })

  it('should tell a unique violation of a named constraint by its explicit name (migration 0013)', () => {
    const clash = Object.assign(new Error('any text'), { code: '23505', constraint: 'orders_code_unique' })
    assert.equal(postgresDialect.isUniqueViolation(clash, 'orders_code_unique'), true)
    assert.equal(postgresDialect.isUniqueViolation(clash, 'orders_public_id_unique'), false)
    assert.equal(postgresDialect.isUniqueViolation({ ...clash, code: '23503' }, 'orders_code_unique'), false)
  })
})
