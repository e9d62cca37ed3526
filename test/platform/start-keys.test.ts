import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, afterEach, before, describe, it } from 'node:test'
import { loadConfig } from '../../src/config.js'
import { openDatabase } from '../../src/db/database.js'
import { MIGRATION_NAMES, migrateToLatest } from '../../src/db/migrator.js'
import { type RunningServer, startServer } from '../../src/http-server.js'
import type { ApiKeySummary } from '../../src/modules/api-keys/api-keys.repository.js'
import { ApiKeysService } from '../../src/modules/api-keys/api-keys.service.js'
import { createLogger } from '../../src/platform/logger.js'
import { basic, DIALECTS } from '../helpers/app.js'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js'
import { Child, databaseUrl, MAIN } from '../helpers/processes.js'

const KEY_ID = 'ops_bootstrap'

const FIRST_SECRET = `${'F'.repeat(32)}_first-secret`
const SECOND_SECRET = `${'S'.repeat(32)}_second-secret`

/** POSTs over the real listening socket. */
async function call(server: RunningServer, urlPath: string, authorization?: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${server.url}${urlPath}`, {
    method: 'POST',
    headers: authorization === undefined ? {} : { authorization }
  })
  return { status: response.status, body: await response.json() }
}

async function listKeys(test: TestDatabase): Promise<ApiKeySummary[]> {
  const database = openDatabase(loadConfig({ DATABASE_URL: databaseUrl(test), DATA_DIR: test.dataDir }))
  try {
    return await new ApiKeysService(database, { now: () => Date.now() }).list()
  } finally {
    await database.close()
  }
}

for (const dialect of DIALECTS) {
  describe(`BOOTSTRAP_API_KEY (D-02) [${dialect}]`, () => {
    let test: TestDatabase
    let server: RunningServer | undefined

    before(async () => {
      test = await createTestDatabase(dialect)
    })
    afterEach(async () => {
      await server?.close(1000)
      server = undefined
    })
    after(async () => {
      await test?.drop()
    })

    const env = (secret: string) => ({
      PORT: '0',
      DATA_DIR: test.dataDir,
      DATABASE_URL: databaseUrl(test),
      DISPATCHER: 'off',
      BOOTSTRAP_API_KEY: `${KEY_ID}:${secret}`
    })

    it('should make the bootstrap key an admin key usable at once, and write no key file', async () => {
      const logs: string[] = []
      server = await startServer(loadConfig(env(FIRST_SECRET)), {
        logger: createLogger('info', { write: (l: string) => void logs.push(l) })
      })
      const stats = await call(server, '/v1/service/stats', basic(KEY_ID, FIRST_SECRET))
      assert.deepEqual(stats, { status: 200, body: { service_stats: [] } })
      assert.equal(fs.existsSync(path.join(test.dataDir, 'initial-api-key')), false)
      assert.ok(!logs.join('\n').includes(FIRST_SECRET))
      const keys = await listKeys(test)
      assert.deepEqual(
        keys.map((k) => ({ id: k.id, role: k.role, revoked_at: k.revoked_at })),
        [{ id: KEY_ID, role: 'admin', revoked_at: null }]
      )
    })

    it('should replace the secret when started again with another secret for the same id', async () => {
      server = await startServer(loadConfig(env(SECOND_SECRET)), { logger: createLogger('silent') })
      assert.equal((await call(server, '/v1/service/stats', basic(KEY_ID, FIRST_SECRET))).status, 401)
      assert.equal((await call(server, '/v1/service/stats', basic(KEY_ID, SECOND_SECRET))).status, 200)
      assert.equal((await listKeys(test)).length, 1)
      assert.equal(fs.existsSync(path.join(test.dataDir, 'initial-api-key')), false)
    })

    it('should restore a bootstrap key that was revoked or demoted', async () => {
      const database = openDatabase(loadConfig({ DATABASE_URL: databaseUrl(test), DATA_DIR: test.dataDir }))
      try {
        await new ApiKeysService(database, { now: () => Date.now() }).revoke(KEY_ID)
      } finally {
        await database.close()
      }
      server = await startServer(loadConfig(env(SECOND_SECRET)), { logger: createLogger('silent') })
      assert.equal((await call(server, '/v1/service/stats', basic(KEY_ID, SECOND_SECRET))).status, 200)
    })
  })

  describe(`first-start key file (D-03) [${dialect}]`, () => {
    let test: TestDatabase
    let server: RunningServer | undefined
    const logs: string[] = []

    before(async () => {
      test = await createTestDatabase(dialect)
    })
    afterEach(async () => {
      await server?.close(1000)
      server = undefined
    })
    after(async () => {
      await test?.drop()
    })

    const config = () => loadConfig({ PORT: '0', DATA_DIR: test.dataDir, DATABASE_URL: databaseUrl(test), DISPATCHER: 'off' })
    const file = () => path.join(test.dataDir, 'initial-api-key')

    it('should create one admin key on an empty database and write KEY_ID:SECRET to a 0600 file', async () => {
      server = await startServer(config(), { logger: createLogger('info', { write: (l: string) => void logs.push(l) }) })
      const content = fs.readFileSync(file(), 'utf8')
      const match = /^([A-Za-z0-9_-]+):([A-Za-z0-9_-]{43,})\n$/.exec(content)
      assert.ok(match, `unexpected file content shape (${content.length} characters)`)
      assert.equal(fs.statSync(file()).mode & 0o777, 0o600)

      const [, id, secret] = match
      // The key works as admin: a staff-only operation answers.
      assert.deepEqual(await call(server, '/v1/service/stats', basic(id!, secret!)), { status: 200, body: { service_stats: [] } })
      const keys = await listKeys(test)
      assert.deepEqual(
        keys.map((k) => ({ id: k.id, role: k.role })),
        [{ id, role: 'admin' }]
      )

      // The log names the file, never the secret.
      const lines = logs.map((line) => JSON.parse(line) as Record<string, unknown>)
      assert.ok(
        lines.some((line) => line.file === file()),
        logs.join('\n')
      )
      assert.ok(!logs.join('\n').includes(secret!))
      // And the migrations this first start applied, all of them (D-04).
      const applied = lines.find((line) => line.msg === 'applied database migrations')
      assert.deepEqual(applied?.migrations, MIGRATION_NAMES)
    })

    it('should not create another key or rewrite the file on a second start', async () => {
      const before = fs.readFileSync(file(), 'utf8')
      const logsBefore = logs.length
      server = await startServer(config(), { logger: createLogger('info', { write: (l: string) => void logs.push(l) }) })
      assert.equal(fs.readFileSync(file(), 'utf8'), before)
      assert.equal((await listKeys(test)).length, 1)
      assert.ok(!logs.slice(logsBefore).some((line) => line.includes('initial-api-key')))
      assert.ok(!logs.slice(logsBefore).some((line) => line.includes('applied database migrations')), 'nothing left to apply')
    })

    it('should not write the file again even when an operator deleted it', async () => {
      fs.rmSync(file())
      server = await startServer(config(), { logger: createLogger('silent') })
      assert.equal(fs.existsSync(file()), false)
      assert.equal((await listKeys(test)).length, 1)
    })
  })

  describe(`first start with BOOTSTRAP_API_KEY writes no key file (D-02, D-03) [${dialect}]`, () => {
    let test: TestDatabase
    let server: RunningServer | undefined

    before(async () => {
      test = await createTestDatabase(dialect)
    })
    after(async () => {
      await server?.close(1000)
      await test?.drop()
    })

    it('should keep the bootstrap key the only key', async () => {
      server = await startServer(
        loadConfig({
          PORT: '0',
          DATA_DIR: test.dataDir,
          DATABASE_URL: databaseUrl(test),
          DISPATCHER: 'off',
          BOOTSTRAP_API_KEY: `${KEY_ID}:${FIRST_SECRET}`
        }),
        { logger: createLogger('silent') }
      )
      await server.close(1000)
      server = undefined
      // Started again without it: the database is no longer empty, so no initial key either.
      server = await startServer(loadConfig({ PORT: '0', DATA_DIR: test.dataDir, DATABASE_URL: databaseUrl(test), DISPATCHER: 'off' }), {
        logger: createLogger('silent')
      })
      assert.equal(fs.existsSync(path.join(test.dataDir, 'initial-api-key')), false)
      assert.deepEqual(
        (await listKeys(test)).map((k) => k.id),
        [KEY_ID]
      )
    })
  })
}

for (const dialect of DIALECTS) {
  describe(`several processes starting at once (D-02, D-03, D-04) [${dialect}]`, () => {
    const databases: TestDatabase[] = []
    const servers: Child[] = []

    after(async () => {
      for (const server of servers) await server.stop()
      for (const database of databases) await database.drop()
    })

    /** Starts `count` servers on one database at the same moment; resolves with their ports. */
    async function startTogether(test: TestDatabase, count: number, extra: Record<string, string>): Promise<number[]> {
      const started = Array.from({ length: count }, () => {
        const child = new Child(MAIN, [], {
          PORT: '0',
          DATABASE_URL: databaseUrl(test),
          DATA_DIR: test.dataDir,
          DISPATCHER: 'off',
          ...extra
        })
        servers.push(child)
        return child
      })
      const lines = await Promise.all(started.map((child) => child.waitForLine((line) => line.includes('service-ordering is listening'))))
      return lines.map((line) => Number(new URL((JSON.parse(line) as { url: string }).url).port))
    }

    async function stats(port: number, authorization: string): Promise<number> {
      return (await fetch(`http://127.0.0.1:${port}/v1/service/stats`, { method: 'POST', headers: { authorization } })).status
    }

    it('should all start with one BOOTSTRAP_API_KEY, which works on each', async () => {
      const test = await createTestDatabase(dialect)
      databases.push(test)
      const ports = await startTogether(test, 3, { BOOTSTRAP_API_KEY: `${KEY_ID}:${FIRST_SECRET}` })
      for (const port of ports) assert.equal(await stats(port, basic(KEY_ID, FIRST_SECRET)), 200)
      assert.deepEqual(
        (await listKeys(test)).map((k) => k.id),
        [KEY_ID]
      )
    })

    it('should all start on an empty database and make exactly one first admin key', async () => {
      const test = await createTestDatabase(dialect)
      databases.push(test)
      const ports = await startTogether(test, 3, {})
      const keys = await listKeys(test)
      assert.equal(keys.length, 1)
      const [id, secret] = fs.readFileSync(path.join(test.dataDir, 'initial-api-key'), 'utf8').trim().split(':')
      assert.equal(id, keys[0]!.id)
      for (const port of ports) assert.equal(await stats(port, basic(id!, secret!)), 200)
    })
  })
}

describe('BOOTSTRAP_API_KEY applied from two connections at the same moment (D-02)', {
  skip: !DIALECTS.includes('postgres') && 'PostgreSQL is not reachable'
}, () => {
  let test: TestDatabase

  before(async () => {
    test = await createTestDatabase('postgres')
  })
  after(async () => {
    await test?.drop()
  })

  it('should let both succeed, leaving one admin key', async () => {
    const config = loadConfig({ DATABASE_URL: databaseUrl(test), DATA_DIR: test.dataDir })
    const first = openDatabase(config)
    const second = openDatabase(config)
    const clock = { now: () => Date.now() }
    try {
      await migrateToLatest(first.db, first.dialect)
      // Many rounds: without the start-up lock every round failed one of the two.
      for (let round = 0; round < 10; round++) {
        await Promise.all([
          new ApiKeysService(first, clock).ensureBootstrapKey(`race_${round}`, FIRST_SECRET),
          new ApiKeysService(second, clock).ensureBootstrapKey(`race_${round}`, FIRST_SECRET)
        ])
      }
      const keys = await new ApiKeysService(first, clock).list()
      assert.deepEqual(
        keys.map((k) => k.role),
        Array.from({ length: 10 }, () => 'admin')
      )
    } finally {
      await first.close()
      await second.close()
    }
  })
})
