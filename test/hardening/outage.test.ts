import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import pg from 'pg'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { type Database, openDatabase } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrator.js'
import { startServer } from '../../src/http-server.js'
import { ApiKeysService } from '../../src/modules/api-keys/api-keys.service.js'
import type { App } from '../../src/platform/app-types.js'
import { createLogger } from '../../src/platform/logger.js'
import { basic, DIALECTS } from '../helpers/app.js'
import { problem } from '../helpers/assertions.js'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js'
import { TcpProxy } from '../helpers/tcp-proxy.js'

// Well above the timeouts configured below (1 s for a connection, 2 s for a statement): an answer
// slower than this is a hang, not a slow 503. Generous so a loaded machine does not fail the test.
const PROMPT_MS = 15_000

/** The promise's value, or a failure naming `label` once `ms` have passed: a hang must fail the test, not stall it. */
async function within<T>(ms: number, promise: Promise<T>, label: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${label}: no answer within ${ms} ms (the request hangs)`)), ms)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

describe('database outage on PostgreSQL: 503 at once, /readyz fails, service resumes by itself (issue 8)', {
  skip: !DIALECTS.includes('postgres') && 'PostgreSQL is not reachable'
}, () => {
  let test: TestDatabase
  let directUrl: URL
  let proxy: TcpProxy
  let database: Database
  let app: App
  let staff = ''
  let customerId = ''
  let orderId = ''
  let itemId = ''
  const logs: string[] = []

  before(async () => {
    test = await createTestDatabase('postgres')
    const direct = new URL(test.database.kind === 'postgres' ? test.database.url : '')
    directUrl = direct
    proxy = new TcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) })
    await proxy.start()
    const viaProxy = new URL(direct)
    viaProxy.host = `127.0.0.1:${proxy.port}`
    const config = loadConfig({
      DATABASE_URL: viaProxy.toString(),
      DATA_DIR: test.dataDir,
      DISPATCHER: 'off',
      STATEMENT_TIMEOUT_MS: '2000',
      DATABASE_POOL_TIMEOUT_MS: '1000',
      DATABASE_POOL_MAX: '4'
    })
    database = openDatabase(config)
    await migrateToLatest(database.db, database.dialect)
    app = await buildApp({
      config,
      database,
      dataKey: randomBytes(32),
      logger: createLogger('warn', { write: (line: string) => void logs.push(line) })
    })
    await app.ready()
    const key = await new ApiKeysService(database, { now: () => Date.now() }).create('staff', 'outage test')
    staff = basic(key.id, key.secret)
    assert.equal((await post('/v1/service/create', { service_name: 'Laundry', description: 'Picked up' })).statusCode, 200)
    itemId = (await post('/v1/item/create', { service_name: 'Laundry', title: 'Shirt', price: 250 })).json().item_id
    customerId = (await post('/v1/customer/create', { email: 'outage@example.com', zip: '10001' })).json().customer_id
    orderId = (await post('/v1/transaction/create', createBody())).json().transaction_id
  })

  after(async () => {
    await refuseConnections(false).catch(() => {})
    await app?.close()
    await database?.close()
    await proxy?.close()
    await test?.drop()
  })

  function post(url: string, body?: unknown): Promise<LightMyRequestResponse> {
    return app.inject({
      method: 'POST',
      url,
      headers: { authorization: staff, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) })
    })
  }

  const createBody = () => ({
    customer_id: customerId,
    service_name: 'Laundry',
    pickup_timestamp: 1_793_344_500,
    delivery_timestamp: 1_793_430_900
  })

  /** A mix of reads (pool and prepared reader) and writes (transactions), and the readiness check. */
  function burst(): Array<[string, () => Promise<LightMyRequestResponse>]> {
    return [
      ['statistics', () => post('/v1/service/stats')],
      ['step', () => post('/v1/service/Laundry/1')],
      ['items', () => post('/v1/service/Laundry')],
      ['get transaction', () => post(`/v1/transaction/${orderId}`)],
      ['list', () => post('/v1/transaction/list', {})],
      ['create transaction', () => post('/v1/transaction/create', createBody())],
      ['add to receipt', () => post('/v1/receipt/add', { transaction_id: orderId, item_id: itemId })],
      ['move', () => post('/v1/transaction/move', { customer_id: customerId, transaction_id: orderId })],
      ['readyz', () => app.inject({ method: 'GET', url: '/readyz' })]
    ]
  }

  /** Sends the burst `times` over at once; every answer is 503 `unavailable`, each within PROMPT_MS. */
  async function assertUnavailable(times: number): Promise<number> {
    let slowest = 0
    const requests = Array.from({ length: times }, () => burst()).flat()
    await Promise.all(
      requests.map(async ([label, send]) => {
        const started = performance.now()
        const response = await within(PROMPT_MS * 2, send(), label)
        const ms = performance.now() - started
        slowest = Math.max(slowest, ms)
        assert.ok(ms < PROMPT_MS, `${label} took ${Math.round(ms)} ms`)
        problem(response, 'unavailable')
        assert.equal(response.headers['retry-after'], '5', label)
      })
    )
    return slowest
  }

  /** Polls until a read and a write succeed again, without restarting anything. */
  async function assertResumes(): Promise<void> {
    const deadline = Date.now() + 60_000
    for (;;) {
      const ready = await within(PROMPT_MS * 2, app.inject({ method: 'GET', url: '/readyz' }), '/readyz')
      if (ready.statusCode === 200) break
      assert.ok(Date.now() < deadline, `/readyz still ${ready.statusCode} a minute after the database came back`)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    // Every kind of request works again, several at once (the pool replaced its dead connections).
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        burst()
          .filter(([label]) => label !== 'move')
          .map(async ([label, send]) => [label, await within(PROMPT_MS * 2, send(), label)] as const)
      )
      for (const [label, response] of answers) assert.equal(response.statusCode, 200, `${label}: ${response.body}`)
    }
  }

  /**
   * The database server itself refuses our database (`ALLOW_CONNECTIONS false`, its sessions ended):
   * PostgreSQL answers a new connection with 55000 "not currently accepting connections".
   */
  async function refuseConnections(refuse: boolean): Promise<void> {
    const name = decodeURIComponent(directUrl.pathname.slice(1))
    const admin = new URL(directUrl)
    admin.pathname = '/postgres'
    const client = new pg.Client({ connectionString: admin.toString() })
    await client.connect()
    try {
      await client.query(`alter database "${name.replace(/"/g, '""')}" allow_connections ${refuse ? 'false' : 'true'}`)
      if (refuse)
        await client.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name])
    } finally {
      await client.end()
    }
  }

  const OUTAGES = {
    down: 'the database goes away (connections reset, new ones refused)',
    partition: 'the network to the database stops carrying packets',
    refused: 'the database server refuses connections to the database (D-21)'
  } as const

  for (const [how, what] of Object.entries(OUTAGES) as Array<[keyof typeof OUTAGES, string]>) {
    it(`should answer 503 unavailable promptly, fail /readyz, keep /healthz and resume by itself when ${what}`, async () => {
      // Warm: the pool holds open connections when the outage starts.
      await assertResumes()
      if (how === 'refused') await refuseConnections(true)
      else await proxy.cut(how)
      const first = await assertUnavailable(3)
      // Again, now that the pool has seen its connections fail.
      const second = await assertUnavailable(2)
      const health = await app.inject({ method: 'GET', url: '/healthz' })
      assert.equal(health.statusCode, 200)
      // D-71: /metrics is still Prometheus text; only the gauges read from the database are left out.
      const scrape = await within(PROMPT_MS * 2, app.inject({ method: 'GET', url: '/metrics' }), '/metrics')
      assert.equal(scrape.statusCode, 200, scrape.body)
      assert.match(String(scrape.headers['content-type']), /^text\/plain/)
      assert.match(scrape.body, /^metrics_source_up\{metric="outbox_backlog"\} 0$/m)
      assert.match(scrape.body, /^http_requests_total\{.*status="503".*\} \d+$/m)
      assert.doesNotMatch(scrape.body, /^outbox_backlog\{/m)
      if (how === 'refused') await refuseConnections(false)
      else await proxy.restore()
      await assertResumes()
      const after = await app.inject({ method: 'GET', url: '/metrics' })
      assert.match(after.body, /^metrics_source_up\{metric="outbox_backlog"\} 1$/m)
      assert.match(after.body, /^outbox_backlog\{/m)
      // Not a fault of ours: warnings, never an error log line (500).
      const errors = logs.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((line) => line.level >= 50)
      assert.deepEqual(
        errors.map((line) => line.msg),
        []
      )
      process.stdout.write(`outage (${how}): slowest 503 ${Math.round(first)} ms, then ${Math.round(second)} ms\n`)
    })
  }
})

describe('shutdown while a statement never ends (STATEMENT_TIMEOUT_MS=0, D-72)', {
  skip: !DIALECTS.includes('postgres') && 'PostgreSQL is not reachable'
}, () => {
  it('should still end: requests are cut after the drain and closing the database is bounded', async () => {
    const test = await createTestDatabase('postgres')
    const direct = new URL(test.database.kind === 'postgres' ? test.database.url : '')
    const proxy = new TcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) })
    await proxy.start()
    const viaProxy = new URL(direct)
    viaProxy.host = `127.0.0.1:${proxy.port}`
    const logs: string[] = []
    const server = await startServer(
      loadConfig({
        DATABASE_URL: viaProxy.toString(),
        DATA_DIR: test.dataDir,
        PORT: '0',
        DISPATCHER: 'off',
        STATEMENT_TIMEOUT_MS: '0',
        BOOTSTRAP_API_KEY: `hung_admin:${'h'.repeat(43)}`
      }),
      { logger: createLogger('warn', { write: (line: string) => void logs.push(line) }) }
    )
    try {
      await proxy.cut('partition')
      // Its statements wait for an answer that never comes, with no timeout of their own.
      const hung = fetch(`${server.url}/v1/service/stats`, {
        method: 'POST',
        headers: { authorization: basic('hung_admin', 'h'.repeat(43)) }
      }).catch((error: unknown) => error)
      await new Promise((resolve) => setTimeout(resolve, 300))
      const started = performance.now()
      await within(PROMPT_MS, server.close(500), 'close')
      // 0.5 s of drain and at most 2 s for the database: well under the 10 s of D-72.
      assert.ok(performance.now() - started < 5000, `close took ${Math.round(performance.now() - started)} ms`)
      assert.ok((await hung) instanceof Error, 'the request in flight was cut')
      assert.ok(
        logs.some((line) => line.includes('stopped before the database connections closed')),
        logs.join('\n')
      )
    } finally {
      await proxy.restore()
      await proxy.close()
      await test.drop()
    }
  })
})
