import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { sql } from 'kysely'
import pg from 'pg'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { type Database, openDatabase } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrator.js'
import { ApiKeysService } from '../../src/modules/api-keys/api-keys.service.js'
import type { App } from '../../src/platform/app-types.js'
import { createLogger } from '../../src/platform/logger.js'
import { basic, DIALECTS } from '../helpers/app.js'
import { problem } from '../helpers/assertions.js'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js'
import { databaseUrl } from '../helpers/processes.js'

// Issue 25: /readyz must fail while the database answers reads but refuses every write, and
// recover with it, without a restart. Waits are bounded by this, never asserted.
const GENEROUS_MS = 20_000

interface Server {
  app: App
  database: Database
  staff: string
  logs: string[]
}

async function start(test: TestDatabase): Promise<Server> {
  const config = loadConfig({ DATABASE_URL: databaseUrl(test), DATA_DIR: test.dataDir, DISPATCHER: 'off', LOG_LEVEL: 'info' })
  const database = openDatabase(config)
  await migrateToLatest(database.db, database.dialect)
  const logs: string[] = []
  const logger = createLogger('info', { write: (line: string) => void logs.push(line) })
  const app = await buildApp({ config, database, dataKey: randomBytes(32), logger })
  await app.ready()
  const key = await new ApiKeysService(database, { now: () => Date.now() }).create('staff', 'readiness')
  return { app, database, staff: basic(key.id, key.secret), logs }
}

let services = 0

/** A write: a new service, each time another name. */
function write(server: Server): Promise<LightMyRequestResponse> {
  services++
  return server.app.inject({
    method: 'POST',
    url: '/v1/service/create',
    headers: { authorization: server.staff },
    payload: { service_name: `Probe ${services}`, description: 'One step' }
  })
}

function read(server: Server): Promise<LightMyRequestResponse> {
  return server.app.inject({ method: 'POST', url: '/v1/service/stats', headers: { authorization: server.staff } })
}

function readyz(server: Server): Promise<LightMyRequestResponse> {
  return server.app.inject({ method: 'GET', url: '/readyz' })
}

function assertReady(response: LightMyRequestResponse): void {
  assert.equal(response.statusCode, 200, response.body)
  assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
  assert.deepEqual(response.json(), { status: 'ready' })
}

function assertUnavailable(response: LightMyRequestResponse): void {
  problem(response, 'unavailable')
  assert.equal(response.headers['retry-after'], '5')
}

/** Writes until one is refused (the fault may take a few to show); every answer on the way is 200 or 503. */
async function untilWriteRefused(server: Server): Promise<void> {
  const deadline = Date.now() + GENEROUS_MS
  for (;;) {
    const response = await write(server)
    if (response.statusCode === 503) return assertUnavailable(response)
    assert.equal(response.statusCode, 200, response.body)
    assert.ok(Date.now() < deadline, 'every write still succeeds')
  }
}

/** Polls /readyz until it answers 200: it must recover by itself once writes work again. */
async function untilReady(server: Server): Promise<void> {
  const deadline = Date.now() + GENEROUS_MS
  for (;;) {
    const response = await readyz(server)
    if (response.statusCode === 200) return assertReady(response)
    assertUnavailable(response)
    assert.ok(Date.now() < deadline, '/readyz still 503 after writes work again')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** While the fault lasts: reads work, writes and /readyz answer 503, and asking again changes nothing. */
async function assertRefusingWrites(server: Server): Promise<void> {
  await untilWriteRefused(server)
  assertUnavailable(await readyz(server))
  assert.equal((await read(server)).statusCode, 200, 'reads still work')
  assertUnavailable(await write(server))
  assertUnavailable(await readyz(server))
  assertUnavailable(await readyz(server))
}

/** Not a fault of ours: warnings only, never an error log line. */
function assertNoErrorLogged(server: Server): void {
  const errors = server.logs.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((line) => line.level >= 50)
  assert.deepEqual(
    errors.map((line) => line.msg),
    []
  )
}

/** Mounts a small tmpfs on `dir` (root only); null when that is not permitted here. */
function mountSmallDisk(dir: string): string | null {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', dir], { stdio: 'pipe' })
    return null
  } catch (error) {
    return `a small filesystem cannot be mounted here (${String((error as { stderr?: Buffer }).stderr ?? error).trim()})`
  }
}

/** Fills the filesystem holding `file` to the last byte. */
function fillDisk(file: string): void {
  const fd = fs.openSync(file, 'w')
  try {
    for (const size of [1 << 20, 65_536, 4096, 512, 1]) {
      const chunk = Buffer.alloc(size)
      try {
        for (;;) fs.writeSync(fd, chunk)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error
      }
    }
  } finally {
    fs.closeSync(fd)
  }
}

const mountRefusal = process.getuid?.() === 0 ? null : 'mounting a small filesystem needs root'

describe('/readyz while SQLite refuses writes on a full disk (issue 25)', { skip: mountRefusal ?? false }, () => {
  let test: TestDatabase
  let server: Server | undefined
  let mounted = false
  let cannotMount: string | null = null

  before(async () => {
    test = await createTestDatabase('sqlite')
    cannotMount = mountSmallDisk(test.dataDir)
    mounted = cannotMount === null
    if (mounted) server = await start(test)
  })

  after(async () => {
    await server?.app.close()
    await server?.database.close()
    if (mounted) execFileSync('umount', [test.dataDir])
    await test?.drop()
  })

  it('should answer /readyz 503 while a full disk refuses every write, and 200 again once there is room, without a restart', async (t) => {
    if (server === undefined) return t.skip(cannotMount ?? 'no server')
    assertReady(await readyz(server))
    assert.equal((await write(server)).statusCode, 200)
    // An empty write-ahead log: the next commit must take new room, which a full disk refuses.
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(server.database.db)
    const filler = path.join(test.dataDir, 'filler')
    fillDisk(filler)
    await assertRefusingWrites(server)
    fs.unlinkSync(filler)
    await untilReady(server)
    assert.equal((await write(server)).statusCode, 200)
    assertNoErrorLogged(server)
  })
})

/** Runs `text` on the PostgreSQL server as the admin, on its `postgres` database. */
async function admin(url: string, text: string, values: unknown[] = []): Promise<void> {
  const adminUrl = new URL(url)
  adminUrl.pathname = '/postgres'
  const client = new pg.Client({ connectionString: adminUrl.toString() })
  await client.connect()
  try {
    await client.query(text, values)
  } finally {
    await client.end()
  }
}

describe('/readyz while PostgreSQL is read-only (issue 25)', {
  skip: !DIALECTS.includes('postgres') && 'PostgreSQL is not reachable'
}, () => {
  let test: TestDatabase
  let server: Server
  let url = ''
  let name = ''

  before(async () => {
    test = await createTestDatabase('postgres')
    url = test.database.kind === 'postgres' ? test.database.url : ''
    name = decodeURIComponent(new URL(url).pathname.slice(1))
    server = await start(test)
  })

  after(async () => {
    await server?.app.close()
    await server?.database.close()
    await test?.drop()
  })

  /** Sessions take the database's default when they start: the API's are ended so its pool opens new ones. */
  async function readOnly(on: boolean): Promise<void> {
    await admin(
      url,
      `alter database "${name.replace(/"/g, '""')}" ${on ? 'set default_transaction_read_only = on' : 'reset default_transaction_read_only'}`
    )
    await admin(url, 'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name])
  }

  it('should answer /readyz 503 while the database refuses writes, and 200 again once it takes them, without a restart', async () => {
    assertReady(await readyz(server))
    assert.equal((await write(server)).statusCode, 200)
    await readOnly(true)
    await assertRefusingWrites(server)
    await readOnly(false)
    await untilReady(server)
    assert.equal((await write(server)).statusCode, 200)
    assertNoErrorLogged(server)
  })
})

for (const dialect of DIALECTS) {
  describe(`/readyz while writes work [${dialect}] (issue 25)`, () => {
    let test: TestDatabase
    let server: Server

    before(async () => {
      test = await createTestDatabase(dialect)
      server = await start(test)
    })

    after(async () => {
      await server?.app.close()
      await server?.database.close()
      await test?.drop()
    })

    it('should not write to find out while use cases commit: one probe at most for a burst of /readyz', async () => {
      // The first /readyz knows of no write yet and probes once.
      assertReady(await readyz(server))
      assert.equal((await write(server)).statusCode, 200)
      const probes: string[] = []
      const stop = server.database.queries.add((text) => {
        if (text.includes('health_probe')) probes.push(text)
      })
      try {
        for (let call = 0; call < 20; call++) assertReady(await readyz(server))
      } finally {
        stop()
      }
      // None while the commit is recent; one if the machine is so slow that 20 calls took seconds.
      assert.ok(probes.length <= 1, `${probes.length} probes`)
    })
  })
}
