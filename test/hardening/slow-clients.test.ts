import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import type net from 'node:net'
import { after, before, describe, it } from 'node:test'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { type Database, openDatabase } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrator.js'
import { ApiKeysService } from '../../src/modules/api-keys/api-keys.service.js'
import type { App } from '../../src/platform/app-types.js'
import { createLogger } from '../../src/platform/logger.js'
import { basic } from '../helpers/app.js'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js'
import { databaseUrl } from '../helpers/processes.js'
import { assertProblem, RawClient } from '../helpers/raw-client.js'

// Deadlines are checked from time to time, and the machine may be loaded: a connection closed
// within this is closed by the deadline, not by the test ending. Never a lower bound.
const GENEROUS_MS = 20_000

interface Server {
  app: App
  database: Database
  port: number
  staff: string
}

/** A listening app (real sockets) on a fresh SQLite database with the given HTTP limits. */
async function listen(test: TestDatabase, env: Record<string, string>): Promise<Server> {
  const config = loadConfig({ DATABASE_URL: databaseUrl(test), DATA_DIR: test.dataDir, DISPATCHER: 'off', ...env })
  const database = openDatabase(config)
  await migrateToLatest(database.db, database.dialect)
  const app = await buildApp({ config, database, dataKey: randomBytes(32), logger: createLogger('silent') })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const key = await new ApiKeysService(database, { now: () => Date.now() }).create('staff', 'slow clients')
  return { app, database, port: (app.server.address() as net.AddressInfo).port, staff: basic(key.id, key.secret) }
}

describe('slow and hostile clients over real sockets (issue 8)', () => {
  let test: TestDatabase
  let server: Server

  before(async () => {
    test = await createTestDatabase('sqlite')
    server = await listen(test, {
      HTTP_HEADERS_TIMEOUT_MS: '400',
      HTTP_REQUEST_TIMEOUT_MS: '800',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '300',
      HTTP_MAX_HEADER_SIZE: '4096'
    })
  })

  after(async () => {
    await server?.app.close()
    await server?.database.close()
    await test?.drop()
  })

  it('should close a slowloris connection that drips header lines, answering 408 request_timeout', async () => {
    const client = new RawClient(server.port)
    await client.connected
    client.write(`POST /v1/service/stats HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${server.staff}\r\n`)
    // One more header line every 100 ms, never the blank line that ends them.
    const drip = setInterval(() => client.write(`X-Drip-${Date.now()}: 1\r\n`), 100)
    try {
      await client.closedWithin(GENEROUS_MS)
    } finally {
      clearInterval(drip)
    }
    assertProblem(client, 408, 'request_timeout')
  })

  it('should close a connection that sends headers and then trickles its body, answering 408', async () => {
    const client = new RawClient(server.port)
    await client.connected
    client.write(
      `POST /v1/service/create HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${server.staff}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"service_name":`
    )
    const drip = setInterval(() => client.write(' '), 100)
    try {
      await client.closedWithin(GENEROUS_MS)
    } finally {
      clearInterval(drip)
    }
    assertProblem(client, 408, 'request_timeout')
    // Nothing was created from the half-sent body.
    const rows = await server.database.db.selectFrom('services').select('id').execute()
    assert.equal(rows.length, 0)
  })

  it('should close a connection that opens and sends nothing', async () => {
    const client = new RawClient(server.port)
    await client.connected
    await client.closedWithin(GENEROUS_MS)
  })

  it('should answer 431 headers_too_large for headers over HTTP_MAX_HEADER_SIZE, and close', async () => {
    const client = new RawClient(server.port)
    await client.connected
    client.write(`POST /v1/service/stats HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(8192)}\r\n\r\n`)
    await client.closedWithin(GENEROUS_MS)
    assertProblem(client, 431, 'headers_too_large')
  })

  it('should answer 400 validation_failed for a request that is not HTTP, and close', async () => {
    for (const garbage of [
      'GARBAGE\r\n\r\n',
      'POST /v1/service/stats HTTP/9.9\r\n\r\n',
      'POST /v1/service/stats HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
      '\u0000\u0001\u0002\r\n\r\n'
    ]) {
      const client = new RawClient(server.port)
      await client.connected
      client.write(garbage)
      await client.closedWithin(GENEROUS_MS)
      assertProblem(client, 400, 'validation_failed')
    }
  })

  it('should close an idle kept-alive connection after HTTP_KEEP_ALIVE_TIMEOUT_MS', async () => {
    const client = new RawClient(server.port)
    await client.connected
    client.write(`POST /v1/service/stats HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${server.staff}\r\n\r\n`)
    await client.closedWithin(GENEROUS_MS)
    assert.equal(client.response().status, 200)
  })

  it('should send nosniff, no X-Powered-By and Cache-Control: no-store on every answer to a credential, over the wire', async () => {
    for (const [path, auth, status] of [
      ['/v1/service/stats', server.staff, 200],
      ['/v1/service/stats', null, 401],
      ['/v1/service/create', server.staff, 400],
      // Outside /v1, the token routes answer POSTs for a credential too.
      ['/reset-password', null, 400],
      ['/track/no-such-token/status', null, 404]
    ] as const) {
      const response = await fetch(`http://127.0.0.1:${server.port}${path}`, {
        method: 'POST',
        headers: auth === null ? {} : { authorization: auth }
      })
      await response.arrayBuffer()
      assert.equal(response.status, status)
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff')
      assert.equal(response.headers.get('x-powered-by'), null)
      assert.equal(response.headers.get('cache-control'), 'no-store')
    }
  })
})
