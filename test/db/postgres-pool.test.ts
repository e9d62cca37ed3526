import assert from 'node:assert/strict'
import { after, afterEach, before, beforeEach, describe, it } from 'node:test'
import pg from 'pg'
import { settlesWithin } from '../../src/common/async.js'
import { postgresDialect } from '../../src/db/dialect.js'
import { PostgresPool } from '../../src/db/postgres.js'
import { DIALECTS } from '../helpers/app.js'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js'

// Issue 25: every connection of the pool survives losing its server, whenever that happens, and a
// connection that lost it (or whose session the server ended) is destroyed on release, not lent again.

describe('the PostgreSQL pool when the server ends a session (issue 25)', {
  skip: !DIALECTS.includes('postgres') && 'PostgreSQL is not reachable'
}, () => {
  let database: TestDatabase
  let admin: pg.Client
  let url = ''
  let pool: PostgresPool

  before(async () => {
    database = await createTestDatabase('postgres')
    url = database.database.kind === 'postgres' ? database.database.url : ''
    admin = new pg.Client({ connectionString: url })
    await admin.connect()
  })

  beforeEach(() => {
    pool = new PostgresPool({ url, poolMax: 4, statementTimeoutMs: 0 })
  })

  afterEach(async () => {
    // A test that failed midway may still hold a connection, which pool.end() would wait for.
    await settlesWithin(pool.end(), 5000)
  })

  after(async () => {
    await admin?.end()
    await database?.drop()
  })

  async function terminate(pid: number): Promise<void> {
    const result = await admin.query('select pg_terminate_backend($1) as done', [pid])
    assert.equal(result.rows[0].done, true)
  }

  /** Waits until the backend runs a statement (pg_stat_activity), so the termination lands mid-statement. */
  async function runningStatement(pid: number): Promise<void> {
    for (let i = 0; i < 600; i++) {
      const result = await admin.query("select state from pg_stat_activity where pid = $1 and state = 'active'", [pid])
      if (result.rowCount === 1) return
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    assert.fail(`backend ${pid} never ran the statement`)
  }

  it('should outlive a checked-out connection whose server ends it while no statement runs, and destroy it on release', {
    timeout: 30_000
  }, async () => {
    // As Kysely holds a connection between a transaction's statements.
    const client = await pool.pg.connect()
    const pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid
    // 'end' follows the 'error' events of the lost session: an unheard one would have ended this process first.
    const ended = new Promise((resolve) => client.once('end', resolve))
    await terminate(pid)
    await ended
    // A raw client's failure has no SQLSTATE; the app's own path wraps it (DatabaseUnavailableError).
    await assert.rejects(client.query('select 1'))
    client.release()
    assert.equal(pool.pg.totalCount, 0, 'the lost connection is not kept')
    const next = (await pool.pg.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid
    assert.notEqual(next, pid)
  })

  it('should destroy on release a connection whose statement the server ended (57P01), and keep one after an SQL error', {
    timeout: 30_000
  }, async () => {
    const kysely = pool.forKysely()
    const held = await kysely.connect()
    const pid = (await held.query<{ pid: number }>('select pg_backend_pid() as pid', [])).rows[0]!.pid
    // Its failure is caught at once: it may arrive before the termination's own answer does.
    const sleeping = held.query('select pg_sleep(60)', []).then(
      () => assert.fail('the statement outlived its session'),
      (error: unknown) => error
    )
    await runningStatement(pid)
    await terminate(pid)
    assert.equal(postgresDialect.isUnavailable(await sleeping), true)
    // Released at once, before node-postgres has seen the socket close.
    held.release()
    assert.equal(pool.pg.totalCount, 0, 'the ended session is not lent again')

    const healthy = await kysely.connect()
    const kept = (await healthy.query<{ pid: number }>('select pg_backend_pid() as pid', [])).rows[0]!.pid
    await assert.rejects(healthy.query('select 1 / 0', []), { code: '22012' })
    healthy.release()
    assert.equal(pool.pg.idleCount, 1, 'an SQL error leaves the session fit for use')
    const again = await kysely.connect()
    assert.equal((await again.query<{ pid: number }>('select pg_backend_pid() as pid', [])).rows[0]!.pid, kept)
    again.release()
  })
})
