import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { basic, DIALECTS } from '../helpers/app.js'
import { lostWrites, MixedLoad, prepareFixture, probe, waitUntil } from '../helpers/chaos-load.js'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js'
import { PrivateCluster, privateClusterUnavailable } from '../helpers/private-postgres.js'
import { Child, CLI, MAIN } from '../helpers/processes.js'

// Issue 25: PostgreSQL ending the API's sessions (a restart, a failover, pg_terminate_backend) must
// cost 503s while it is away, never the process; service resumes by itself and no write answered
// 200 is lost. The API runs as a real process, under concurrent writers and readers.

const KEY_ID = 'restart_admin'
const SECRET = 'r'.repeat(43)
const AUTH = basic(KEY_ID, SECRET)
const CLIENTS = 8
// Writes acknowledged after a fault that show the API serves again by itself.
const RESUMED = 30

/** Starts the server (MAIN) on `databaseUrl`; resolves with the child and its base URL. */
async function startApi(databaseUrl: string, dataDir: string): Promise<{ child: Child; url: string }> {
  const child = new Child(MAIN, [], {
    PORT: '0',
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    BOOTSTRAP_API_KEY: `${KEY_ID}:${SECRET}`,
    // The in-process dispatcher (D-61) claims and records outbox rows on the same pool.
    DISPATCHER: 'on',
    LOG_LEVEL: 'info'
  })
  try {
    const line = await child.waitForLine((text) => text.includes('service-ordering is listening'))
    return { child, url: (JSON.parse(line) as { url: string }).url }
  } catch (error) {
    await child.stop()
    throw error
  }
}

/**
 * The API (and the other processes watched) under the load. Every wait fails at once, naming how,
 * when a watched process has exited: without the fix the API died on the first faults.
 */
class UnderLoad {
  private readonly exits: string[] = []
  load: MixedLoad | undefined

  constructor(readonly api: { child: Child; url: string }) {
    this.watch(api.child, 'the API')
  }

  watch(child: Child, what: string): void {
    void child.exited.then((code) => this.exits.push(`${what} exited (${String(code)}):\n${child.stderr.slice(-30).join('\n')}`))
  }

  /** Starts CLIENTS clients; resolves once they made the first writes. */
  async start(): Promise<MixedLoad> {
    this.load = new MixedLoad(this.api.url, AUTH, await prepareFixture(this.api.url, AUTH))
    await this.load.start(CLIENTS)
    await this.resumedAfter(0, 'the start')
    return this.load
  }

  until(what: string, condition: () => boolean | Promise<boolean>): Promise<void> {
    return waitUntil(
      what,
      () => {
        assert.deepEqual(this.exits, [])
        return condition()
      },
      90_000
    )
  }

  /** Waits until the load has had RESUMED writes acknowledged that it sent after `since`. */
  resumedAfter(since: number, what: string): Promise<void> {
    return this.until(`${RESUMED} writes acknowledged after ${what}`, () => this.load!.writesSince(since) >= RESUMED)
  }

  /** The database away: /readyz and the load's requests answer 503 (awaited, not timed). */
  async awayObserved(since: number): Promise<void> {
    await this.until('/readyz answering 503', async () => (await probe(this.api.url, '/readyz')) === 503)
    await this.until('the load answered 503', () => this.load!.unavailableSince(since) >= 3)
  }

  async readyAgain(): Promise<void> {
    await this.until('/readyz answering 200 again', async () => (await probe(this.api.url, '/readyz')) === 200)
  }

  /** After the faults: the processes run, every answer was 200 or 503, every acknowledged write is there. */
  async assertIntact(label: string): Promise<void> {
    const load = this.load!
    await load.stop()
    assert.deepEqual(this.exits, [])
    assert.deepEqual(load.unexpected.slice(0, 10), [], 'every answer is 200, or 503 unavailable with Retry-After')
    assert.equal(await probe(this.api.url, '/healthz'), 200)
    assert.equal(await probe(this.api.url, '/readyz'), 200)
    assert.ok(load.orders.size > 0 && load.customers.size > 0)
    assert.deepEqual(await lostWrites(this.api.url, AUTH, load), [], 'acknowledged writes missing after the faults')
    const unavailable = load.events.filter((event) => event.kind === 'unavailable').length
    process.stdout.write(
      `${label}: ${load.events.length} answers, ${unavailable} of them 503; ${load.orders.size + load.customers.size} creations acknowledged, none lost\n`
    )
  }

  /** SIGTERM: the API drains and exits 0 (D-72). */
  async stop(): Promise<void> {
    await this.load?.stop()
    this.api.child.kill('SIGTERM')
    assert.equal(await this.api.child.exit(30_000), 0)
  }
}

describe('PostgreSQL ending the API sessions under load (issue 25)', {
  skip: !DIALECTS.includes('postgres') && 'PostgreSQL is not reachable'
}, () => {
  let database: TestDatabase
  let name = ''
  let admin: pg.Client
  let run: UnderLoad | undefined
  let worker: Child | undefined

  before(async () => {
    database = await createTestDatabase('postgres')
    const url = new URL(database.database.kind === 'postgres' ? database.database.url : '')
    name = decodeURIComponent(url.pathname.slice(1))
    url.pathname = '/postgres'
    admin = new pg.Client({ connectionString: url.toString() })
    await admin.connect()
  })

  after(async () => {
    await run?.load?.stop()
    await run?.api.child.stop()
    await worker?.stop()
    await admin?.query(`alter database "${name}" allow_connections true`).catch(() => {})
    await admin?.end()
    await database?.drop()
  })

  /** Ends every session of this file's database only: other files use the same server at once. */
  async function terminate(): Promise<number> {
    const result = await admin.query(
      'select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [name]
    )
    return result.rows[0].n as number
  }

  it('should keep the API and the worker up, answer 503 while the database is away, resume, and lose no acknowledged write', {
    timeout: 600_000
  }, async () => {
    const databaseUrl = database.database.kind === 'postgres' ? database.database.url : ''
    run = new UnderLoad(await startApi(databaseUrl, database.dataDir))
    // `service-ordering worker` (D-61) on the same database: its sessions are terminated alike.
    worker = new Child(CLI, ['worker'], { DATABASE_URL: databaseUrl, DATA_DIR: database.dataDir, LOG_LEVEL: 'info' })
    await worker.waitForLine((line) => line.includes('outbox dispatcher is running'))
    run.watch(worker, 'the worker')
    await run.start()

    for (let round = 1; round <= 6; round++) {
      const since = performance.now()
      assert.ok((await terminate()) > 0, 'the API holds sessions to terminate')
      await run.resumedAfter(since, `termination ${round}`)
    }

    // Away for a while: the database refuses new sessions, and the open ones are ended.
    await admin.query(`alter database "${name}" allow_connections false`)
    const since = performance.now()
    await terminate()
    await run.awayObserved(since)
    await admin.query(`alter database "${name}" allow_connections true`)
    await run.readyAgain()
    await run.resumedAfter(performance.now(), 'the database came back')

    await run.assertIntact('terminations')
    worker.kill('SIGTERM')
    assert.equal(await worker.exit(30_000), 0)
    await run.stop()
  })
})

const noCluster = privateClusterUnavailable()

describe('a private PostgreSQL cluster restarted and stopped under load (issue 25)', { skip: noCluster ?? false }, () => {
  let cluster: PrivateCluster | undefined
  let run: UnderLoad | undefined
  let database: TestDatabase

  before(async () => {
    // Only the data directory of a test database: the cluster is this file's own.
    database = await createTestDatabase('sqlite')
    cluster = await PrivateCluster.create()
  })

  after(async () => {
    await run?.load?.stop()
    await run?.api.child.stop()
    await cluster?.destroy()
    await database?.drop()
  })

  it('should survive restarts and a stop, answer 503 and fail /readyz while it is down, and lose no acknowledged write', {
    timeout: 600_000
  }, async () => {
    const server = cluster!
    run = new UnderLoad(await startApi(server.url(), database.dataDir))
    await run.start()

    for (let round = 1; round <= 2; round++) {
      const since = performance.now()
      await server.restart('fast')
      await run.resumedAfter(since, `fast restart ${round}`)
    }

    // Down for a while: every request is 503 and /readyz fails until it is started again.
    const since = performance.now()
    await server.stop('fast')
    await run.awayObserved(since)
    await server.start()
    await run.readyAgain()
    await run.resumedAfter(performance.now(), 'the start after a stop')

    // A crash of the server and WAL recovery: what was acknowledged was committed durably.
    const crash = performance.now()
    await server.restart('immediate')
    await run.resumedAfter(crash, 'an immediate restart')

    await run.assertIntact('private cluster restarts')
    await run.stop()
  })
})
