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

// Issue 25: idle connections held by one client must not shut the others out. Each client here
// connects from its own loopback address (Linux routes all of 127/8 to lo). Closing is proved by
// the close event, never by elapsed time; this only bounds a wait that would otherwise hang.
const GENEROUS_MS = 20_000
const HOG = '127.0.0.2'

interface Server {
  app: App
  database: Database
  port: number
  staff: string
}

/** A listening app on a fresh SQLite database; deadlines long enough that only the limits close anything. */
async function listen(test: TestDatabase, env: Record<string, string>): Promise<Server> {
  const config = loadConfig({
    DATABASE_URL: databaseUrl(test),
    DATA_DIR: test.dataDir,
    DISPATCHER: 'off',
    HTTP_HEADERS_TIMEOUT_MS: '60000',
    HTTP_REQUEST_TIMEOUT_MS: '60000',
    ...env
  })
  const database = openDatabase(config)
  await migrateToLatest(database.db, database.dialect)
  const app = await buildApp({ config, database, dataKey: randomBytes(32), logger: createLogger('silent') })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const key = await new ApiKeysService(database, { now: () => Date.now() }).create('staff', 'idle connections')
  return { app, database, port: (app.server.address() as net.AddressInfo).port, staff: basic(key.id, key.secret) }
}

async function stop(server: Server | undefined, test: TestDatabase | undefined): Promise<void> {
  server?.app.server.closeAllConnections()
  await server?.app.close()
  await server?.database.close()
  await test?.drop()
}

/** Waits until the server holds exactly `count` connections (accepted, and the closed ones gone). */
async function serverHolds(server: Server, count: number): Promise<void> {
  const deadline = Date.now() + GENEROUS_MS
  for (;;) {
    const held = await new Promise<number>((resolve, reject) =>
      server.app.server.getConnections((error, n) => (error ? reject(error) : resolve(n)))
    )
    if (held === count) return
    assert.ok(Date.now() < deadline, `the server holds ${held} connections, not ${count}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** Opens idle connections from `address` one at a time, each accepted before the next, so their order is known. */
async function openIdle(server: Server, address: string, count: number, heldAfterEach: (index: number) => number): Promise<RawClient[]> {
  const clients: RawClient[] = []
  for (let index = 0; index < count; index++) {
    const client = new RawClient(server.port, address)
    await client.connected
    clients.push(client)
    await serverHolds(server, heldAfterEach(index))
  }
  return clients
}

function statsRequest(server: Server, extra = ''): string {
  return `POST /v1/service/stats HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${server.staff}\r\n${extra}Connection: close\r\n\r\n`
}

/** Sends one whole request on the connection and returns the status of its answer. */
async function answered(server: Server, client: RawClient): Promise<number> {
  client.write(statsRequest(server))
  await client.closedWithin(GENEROUS_MS)
  return client.response().status
}

/** A request whose headers were read and whose body is still to come: Node's 100 Continue says the headers were read. */
async function midRequest(server: Server, address: string): Promise<RawClient> {
  const client = new RawClient(server.port, address)
  client.write(
    `POST /v1/service/create HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${server.staff}\r\nContent-Type: application/json\r\n` +
      'Content-Length: 2\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n'
  )
  const deadline = Date.now() + GENEROUS_MS
  while (!client.received.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
    assert.ok(Date.now() < deadline, `no 100 Continue: ${JSON.stringify(client.received)}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return client
}

/** Sends the pending body, `{}`, and checks it was answered as such: 400 validation_failed after the 100 Continue. */
async function finished(client: RawClient): Promise<void> {
  client.write('{}')
  await client.closedWithin(GENEROUS_MS)
  client.received = client.received.slice('HTTP/1.1 100 Continue\r\n\r\n'.length)
  assertProblem(client, 400, 'validation_failed')
}

describe('idle connections at HTTP_MAX_CONNECTIONS (issue 25)', () => {
  let test: TestDatabase
  let server: Server

  before(async () => {
    test = await createTestDatabase('sqlite')
    server = await listen(test, { HTTP_MAX_CONNECTIONS: '20', HTTP_MAX_CONNECTIONS_PER_ADDRESS: '20' })
  })

  after(() => stop(server, test))

  it('should answer new clients while one client holds every connection idle, closing its longest-idle ones to make room', async () => {
    const hog = await openIdle(server, HOG, 20, (index) => index + 1)
    for (let newcomer = 0; newcomer < 5; newcomer++) {
      const client = new RawClient(server.port, `127.0.0.${3 + newcomer}`)
      assert.equal(await answered(server, client), 200, client.received.slice(0, 200))
      // The connection idle the longest made room, unanswered since it never asked.
      await hog[newcomer]!.closedWithin(GENEROUS_MS)
      assert.equal(hog[newcomer]!.received, '')
      // The hog takes the freed place again: the server is full once more.
      hog.push(...(await openIdle(server, HOG, 1, () => 20)))
    }
    // The others were left alone: the newest and the next in line still answer.
    assert.equal(await answered(server, hog.at(-1)!), 200)
    assert.equal(await answered(server, hog[5]!), 200)
    for (const client of hog) client.socket.destroy()
  })
})

describe('connections per client address, HTTP_MAX_CONNECTIONS_PER_ADDRESS (issue 25)', () => {
  let test: TestDatabase
  let server: Server

  before(async () => {
    test = await createTestDatabase('sqlite')
    server = await listen(test, { HTTP_MAX_CONNECTIONS: '20', HTTP_MAX_CONNECTIONS_PER_ADDRESS: '5' })
  })

  after(() => stop(server, test))

  it("should close an address's own longest-idle connection past its share, never another client's", async () => {
    // Another client's idle connection, the longest idle of all.
    const [other] = await openIdle(server, '127.0.0.3', 1, () => 1)
    const hog = await openIdle(server, HOG, 12, (index) => 1 + Math.min(index + 1, 5))
    // Each connection past the fifth closed the hog's own oldest.
    for (const client of hog.slice(0, 7)) {
      await client.closedWithin(GENEROUS_MS)
      assert.equal(client.received, '')
    }
    assert.equal(await answered(server, other!), 200)
    assert.equal(await answered(server, hog[11]!), 200)
    assert.equal(await answered(server, hog[7]!), 200)
    for (const client of hog) client.socket.destroy()
  })

  it('should close a new connection at once when its address already has its share in flight', async () => {
    await serverHolds(server, 0)
    const busy = await Promise.all(Array.from({ length: 5 }, () => midRequest(server, HOG)))
    await serverHolds(server, 5)
    const refused = new RawClient(server.port, HOG)
    refused.write(statsRequest(server))
    await refused.closedWithin(GENEROUS_MS)
    assert.equal(refused.received, '', 'closed unanswered')
    // Another address still gets in, and every request in flight is answered.
    assert.equal(await answered(server, new RawClient(server.port, '127.0.0.3')), 200)
    for (const client of busy) await finished(client)
  })
})

describe('requests in flight at HTTP_MAX_CONNECTIONS (issue 25)', () => {
  let test: TestDatabase
  let server: Server

  before(async () => {
    test = await createTestDatabase('sqlite')
    server = await listen(test, { HTTP_MAX_CONNECTIONS: '4', HTTP_MAX_CONNECTIONS_PER_ADDRESS: '4' })
  })

  after(() => stop(server, test))

  it('should never close a connection mid-request to make room: the idle one goes, though newer, and with none idle the new one is closed', async () => {
    // The oldest connections are mid-request: headers read, body not sent.
    const busy: RawClient[] = []
    for (let index = 0; index < 3; index++) busy.push(await midRequest(server, HOG))
    const [idle] = await openIdle(server, '127.0.0.3', 1, () => 4)
    assert.equal(await answered(server, new RawClient(server.port, '127.0.0.4')), 200)
    await idle!.closedWithin(GENEROUS_MS)
    assert.equal(idle!.received, '')
    // Every connection mid-request now: a new one is closed unanswered.
    busy.push(await midRequest(server, '127.0.0.5'))
    await serverHolds(server, 4)
    const refused = new RawClient(server.port, '127.0.0.6')
    refused.write(statsRequest(server))
    await refused.closedWithin(GENEROUS_MS)
    assert.equal(refused.received, '')
    for (const client of busy) await finished(client)
  })

  it('should let a kept-alive connection that finished its request make room', async () => {
    await serverHolds(server, 0)
    const kept: RawClient[] = []
    for (let index = 0; index < 4; index++) {
      const client = new RawClient(server.port, HOG)
      client.write(`POST /v1/service/stats HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${server.staff}\r\n\r\n`)
      const deadline = Date.now() + GENEROUS_MS
      while (!client.received.includes('\r\n\r\n')) {
        assert.ok(Date.now() < deadline, 'no answer')
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      kept.push(client)
    }
    await serverHolds(server, 4)
    assert.equal(await answered(server, new RawClient(server.port, '127.0.0.3')), 200)
    await kept[0]!.closedWithin(GENEROUS_MS)
    assert.equal(kept[0]!.response().status, 200, 'its one answer, then closed')
    for (const client of kept) client.socket.destroy()
  })
})
