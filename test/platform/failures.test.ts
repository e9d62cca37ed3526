import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { type Database, openDatabase } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrator.js'
import { ApiKeysService } from '../../src/modules/api-keys/api-keys.service.js'
import type { App } from '../../src/platform/app-types.js'
import { createLogger } from '../../src/platform/logger.js'
import { basic, DIALECTS } from '../helpers/app.js'
import { problem } from '../helpers/assertions.js'
import { createTestDatabase, postgresAdminUrl, type TestDatabase } from '../helpers/databases.js'
import { databaseUrl } from '../helpers/processes.js'

const UNAVAILABLE = {
  type: '/problems/unavailable',
  title: 'Service Unavailable',
  status: 503,
  detail: 'The service cannot reach its database right now; try again shortly.',
  code: 'unavailable'
}

const INTERNAL = {
  type: '/problems/internal',
  title: 'Internal Server Error',
  status: 500,
  detail: 'Something went wrong on our side; the request may be retried.',
  code: 'internal'
}

/** An app built by hand on a migrated database, with a staff key and captured logs. */
async function appOn(
  test: TestDatabase,
  extraRoutes?: (app: App) => void
): Promise<{ app: App; database: Database; logs: string[]; staff: string; secret: string }> {
  const config = loadConfig({ DATABASE_URL: databaseUrl(test), DATA_DIR: test.dataDir, DISPATCHER: 'off' })
  const database = openDatabase(config)
  await migrateToLatest(database.db, database.dialect)
  const logs: string[] = []
  const logger = createLogger('info', { write: (line: string) => void logs.push(line) })
  const app = await buildApp({ config, database, dataKey: randomBytes(32), logger })
  extraRoutes?.(app)
  await app.ready()
  const key = await new ApiKeysService(database, { now: () => Date.now() }).create('staff', 'failures test')
  return { app, database, logs, staff: basic(key.id, key.secret), secret: key.secret }
}

for (const dialect of DIALECTS) {
  describe(`500 internal (D-20, D-21) [${dialect}]`, () => {
    let test: TestDatabase
    let built: Awaited<ReturnType<typeof appOn>>

    before(async () => {
      test = await createTestDatabase(dialect)
      built = await appOn(test, (app) => {
        app.post('/v1/test/boom', async () => {
          const error = new Error('select secret_hash from api_keys where id = $1 failed: s3cr3t-detail')
          throw error
        })
        app.post('/v1/test/boom-value', async () => {
          // Something that is not even an Error.
          throw 'a thrown string with SQL: delete from customers'
        })
      })
    })

    after(async () => {
      await built?.app.close()
      await built?.database.close()
      await test?.drop()
    })

    it('should answer 500 internal without the message or stack, and log the error (not its stack) with the request id', async () => {
      const response = await built.app.inject({
        method: 'POST',
        url: '/v1/test/boom',
        headers: { 'x-request-id': 'boom-request-1', authorization: built.staff }
      })
      problem(response, 'internal')
      assert.deepEqual(response.json(), INTERNAL)
      assert.equal(response.headers['x-request-id'], 'boom-request-1')
      assert.ok(!response.body.includes('select'))
      assert.ok(!response.body.includes('s3cr3t'))
      assert.ok(!response.body.includes('at '))

      const logged = built.logs.map((line) => JSON.parse(line) as Record<string, any>).find((line) => line.err !== undefined)
      assert.ok(logged !== undefined, 'the error is logged')
      assert.equal(logged.request_id, 'boom-request-1')
      assert.equal(logged.level, 50)
      assert.equal(logged.err.message, 'select secret_hash from api_keys where id = $1 failed: s3cr3t-detail')
      // Where it was thrown, never the whole stack trace (D-73).
      assert.match(logged.err.at, /failures\.test\.ts:\d+:\d+$/)
      assert.equal(logged.err.stack, undefined)
      // The Authorization header never reaches the log, even with the error.
      assert.ok(!built.logs.join('\n').includes(built.secret))
      assert.ok(!built.logs.join('\n').includes(built.staff))
    })

    it('should answer 500 internal for a thrown value that is not an Error', async () => {
      const response = await built.app.inject({ method: 'POST', url: '/v1/test/boom-value' })
      assert.deepEqual(response.json(), INTERNAL)
      problem(response, 'internal')
      assert.ok(!response.body.includes('delete'))
    })
  })

  describe(`503 unavailable when the database is closed under the app (D-21, D-71) [${dialect}]`, () => {
    let test: TestDatabase
    let built: Awaited<ReturnType<typeof appOn>>

    before(async () => {
      test = await createTestDatabase(dialect)
      built = await appOn(test)
      const ready = await built.app.inject({ method: 'GET', url: '/readyz' })
      assert.equal(ready.statusCode, 200)
      await built.database.close()
    })

    after(async () => {
      await built?.app.close()
      await test?.drop()
    })

    for (const [what, url, payload] of [
      ['a read (service statistics)', '/v1/service/stats', undefined],
      ['a step read', '/v1/service/Laundry/1', undefined],
      ['a write (create service)', '/v1/service/create', { service_name: 'Laundry', description: 'Wash' }]
    ] as const) {
      it(`should answer 503 unavailable with Retry-After for ${what}`, async () => {
        const response = await built.app.inject({
          method: 'POST',
          url,
          headers: { authorization: built.staff, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(payload === undefined ? {} : { payload: JSON.stringify(payload) })
        })
        problem(response, 'unavailable')
        assert.deepEqual(response.json(), UNAVAILABLE)
        assert.equal(response.headers['retry-after'], '5')
      })
    }

    it('should answer /readyz with 503 unavailable and Retry-After', async () => {
      const response = await built.app.inject({ method: 'GET', url: '/readyz' })
      problem(response, 'unavailable')
      assert.deepEqual(response.json(), UNAVAILABLE)
      assert.equal(response.headers['retry-after'], '5')
    })

    it('should still answer /healthz 200 (the process is alive)', async () => {
      const response = await built.app.inject({ method: 'GET', url: '/healthz' })
      assert.equal(response.statusCode, 200)
      assert.deepEqual(response.json(), { status: 'ok' })
    })

    it('should log the cause as a warning with the request id, not as an internal error', async () => {
      const lines = built.logs.map((line) => JSON.parse(line) as Record<string, any>)
      assert.ok(lines.some((line) => line.level === 40 && line.err !== undefined && typeof line.request_id === 'string'))
      assert.ok(!lines.some((line) => line.level >= 50))
    })
  })
}

describe('503 unavailable on PostgreSQL that cannot be reached (D-21, D-71)', {
  skip: !DIALECTS.includes('postgres') && 'PostgreSQL is not reachable'
}, () => {
  const apps: Array<{ app: App; database: Database }> = []

  after(async () => {
    for (const { app, database } of apps) {
      await app.close()
      await database.close()
    }
  })

  async function unreachable(url: string): Promise<App> {
    const config = loadConfig({ DATABASE_URL: url, DATA_DIR: '/tmp', DISPATCHER: 'off' })
    const database = openDatabase(config)
    const app = await buildApp({ config, database, dataKey: randomBytes(32), logger: createLogger('silent') })
    await app.ready()
    apps.push({ app, database })
    return app
  }

  async function assertUnavailable(app: App): Promise<void> {
    for (const request of [
      { method: 'POST' as const, url: '/v1/service/stats', headers: { authorization: basic('key_nothing', 'x'.repeat(43)) } },
      { method: 'POST' as const, url: '/v1/service/Laundry/1', headers: { authorization: basic('key_nothing', 'x'.repeat(43)) } },
      { method: 'GET' as const, url: '/readyz' }
    ]) {
      const response = await app.inject(request)
      problem(response, 'unavailable')
      assert.deepEqual(response.json(), UNAVAILABLE)
      assert.equal(response.headers['retry-after'], '5')
    }
  }

  it('should answer 503 for a database that does not exist', async () => {
    const admin = new URL((await postgresAdminUrl())!)
    admin.pathname = `/so_missing_${randomBytes(6).toString('hex')}`
    await assertUnavailable(await unreachable(admin.toString()))
  })

  it('should answer 503 for a server that refuses connections', async () => {
    // Port 1 on the loopback address: nothing listens there.
    await assertUnavailable(await unreachable('postgres://postgres@127.0.0.1:1/postgres'))
  })
})
