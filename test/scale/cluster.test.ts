import assert from 'node:assert/strict'
import http from 'node:http'
import net from 'node:net'
import { after, before, describe, it } from 'node:test'
import { DIALECTS } from '../helpers/app.js'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js'
import { Child, CLI, run, waitUntilRefused } from '../helpers/processes.js'
import { ADMIN_AUTH, type ApiProcess, sharedEnv, startApi, startSlowRequest, stopAll } from './support.js'

/**
 * Issue 10, item 1: `service-ordering serve --workers N` runs N API processes (node:cluster) on one
 * port: start-up work once, one in-process dispatcher, dead workers replaced, SIGTERM drains all (D-72).
 */

/** One request on a connection of its own, so the primary hands each to the next worker. */
function request(url: string, path: string): Promise<number> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    http
      .request(
        { host: hostname, port: Number(port), path, method: 'POST', agent: false, headers: { authorization: ADMIN_AUTH } },
        (response) => {
          response.resume()
          response.on('end', () => resolve(response.statusCode ?? 0))
        }
      )
      .on('error', reject)
      .end()
  })
}

interface LogLine {
  msg: string
  worker?: number
  pid?: number
  role?: string
  dispatcher?: boolean
  restartInMs?: number
}

function lines(child: Child): LogLine[] {
  return child.stdout.flatMap((line) => {
    try {
      return [JSON.parse(line) as LogLine]
    } catch {
      return []
    }
  })
}

describe('serve --workers 2 on PostgreSQL (issue 10)', {
  skip: !DIALECTS.includes('postgres') && 'PostgreSQL is not reachable (TEST_DATABASE_URL or 127.0.0.1:5432): several API processes need it'
}, () => {
  let database: TestDatabase
  const children: Child[] = []
  let api: ApiProcess

  before(async () => {
    database = await createTestDatabase('postgres')
    // DISPATCHER=on: the cluster must still run one in-process dispatcher, not two (D-61).
    api = await startApi('cluster', sharedEnv(database, { DISPATCHER: 'on' }), children, ['--workers', '2'])
    // The workers' own lines travel on the shared stdout, beside (not before) their message to the primary.
    for (const slot of [0, 1]) await api.child.waitForLine((l) => l.includes('API worker is listening') && l.includes(`"worker":${slot}`))
  })

  after(async () => {
    await stopAll(children)
    await database?.drop()
  })

  it('should announce once when both workers listen on one port, and run the dispatcher in one of them only (D-61)', () => {
    const log = lines(api.child)
    const listening = log.filter((l) => l.msg === 'API worker is listening')
    assert.deepEqual(listening.map((l) => l.worker).sort(), [0, 1])
    assert.deepEqual(listening.map((l) => [l.worker, l.dispatcher]).sort(), [
      [0, true],
      [1, false]
    ])
    assert.equal(new Set(listening.map((l) => l.pid)).size, 2)
    // The primary announces the cluster once, when both workers listen.
    assert.equal(log.filter((l) => l.msg === 'service-ordering is listening').length, 1)
    assert.equal(log.find((l) => l.msg === 'service-ordering is listening')!.role, 'primary')
  })

  it('should hand requests to both workers', async () => {
    const statuses = await Promise.all(Array.from({ length: 20 }, () => request(api.url, '/v1/service/stats')))
    assert.deepEqual([...new Set(statuses)], [200])
    const served = new Set(
      lines(api.child)
        .filter((l) => l.msg === 'request completed')
        .map((l) => l.worker)
    )
    assert.deepEqual([...served].sort(), [0, 1])
  })

  it('should replace a worker that dies, and keep answering meanwhile', async () => {
    const victim = lines(api.child).find((l) => l.msg === 'API worker is listening' && l.worker === 1)!
    process.kill(victim.pid!, 'SIGKILL')
    await api.child.waitForLine((l) => l.includes('an API worker exited; starting another'), 30_000)
    // The other worker serves every request while slot 1 restarts.
    assert.deepEqual([...new Set(await Promise.all(Array.from({ length: 10 }, () => request(api.url, '/v1/service/stats'))))], [200])
    await api.child.waitForLine(
      (l) => l.includes('API worker is listening') && l.includes('"worker":1') && !l.includes(`"pid":${victim.pid},`),
      60_000
    )
    const exited = lines(api.child).find((l) => l.msg === 'an API worker exited; starting another')!
    assert.equal(exited.restartInMs, 500, 'the first restart waits the shortest backoff')
    assert.deepEqual([...new Set(await Promise.all(Array.from({ length: 10 }, () => request(api.url, '/v1/service/stats'))))], [200])
  })

  it('should drain every worker on SIGTERM to the primary: the request in flight completes, exit status 0 (D-72)', async () => {
    const port = Number(new URL(api.url).port)
    const slow = await startSlowRequest(
      api.url,
      '/v1/service/create',
      JSON.stringify({ service_name: 'Drained by the cluster', description: 'one' })
    )
    api.child.kill('SIGTERM')
    await api.child.waitForLine((l) => l.includes('"role":"primary"') && l.includes('shutting down'))
    await waitUntilRefused(port)
    slow.finish()
    const answer = await slow.answer
    assert.equal(answer.status, 200, answer.body)
    assert.deepEqual(JSON.parse(answer.body), { message: 'successfully created' })
    assert.equal(await api.child.exit(30_000), 0, api.child.stderr.join('\n'))
    const stopped = lines(api.child).filter((l) => l.msg === 'stopped')
    assert.equal(stopped.length, 3, 'two workers and the primary')
  })
})

describe('serve --workers: refusals (issue 10)', () => {
  it('should refuse several workers on SQLite with one line, exit status 1', async () => {
    const result = await run(CLI, ['serve', '--workers', '2'], { DATABASE_URL: 'sqlite::memory:', PORT: '0' })
    assert.equal(result.code, 1)
    assert.equal(
      result.stderr,
      'service-ordering: invalid configuration: WORKERS (or serve --workers) must be 1 with SQLite (got 2); several API processes need a postgres:// DATABASE_URL\n'
    )
  })

  it('should take --workers over WORKERS, whatever WORKERS holds', async () => {
    for (const workers of ['2', 'abc']) {
      const server = new Child(CLI, ['serve', '--workers', '1'], {
        DATABASE_URL: 'sqlite::memory:',
        PORT: '0',
        DISPATCHER: 'off',
        WORKERS: workers
      })
      try {
        await server.waitForLine((line) => line.includes('service-ordering is listening'))
      } finally {
        server.kill('SIGTERM')
        await server.exit(15_000)
      }
    }
  })

  it('should refuse a bad --workers value like a bad WORKERS, exit status 1', async () => {
    const result = await run(CLI, ['serve', '--workers', 'two'], { DATABASE_URL: 'sqlite::memory:' })
    assert.equal(result.code, 1)
    assert.equal(
      result.stderr,
      'service-ordering: invalid configuration: WORKERS (or serve --workers) must be a whole number from 1 to 64 (got "two")\n'
    )
  })

  it('should stop with exit status 1 when the workers cannot start (a busy port)', {
    skip: !DIALECTS.includes('postgres') && 'PostgreSQL is not reachable'
  }, async () => {
    const database = await createTestDatabase('postgres')
    const busy = net.createServer()
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
    try {
      const port = (busy.address() as net.AddressInfo).port
      const result = await run(CLI, ['serve', '--workers', '2'], sharedEnv(database, { PORT: String(port) }))
      assert.equal(result.code, 1, result.stdout + result.stderr)
      assert.match(result.stdout, /an API worker failed to start; stopping/)
    } finally {
      busy.close()
      await database.drop()
    }
  })
})
