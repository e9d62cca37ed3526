import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import pg from 'pg'
import { DIALECTS, TestApp } from '../helpers/app.js'
import { ok, problem } from '../helpers/assertions.js'
import { createCustomer, createOrder, createService } from '../helpers/factories.js'

/**
 * Issue 10, item 3: a PostgreSQL pool that is used up answers 503 `unavailable` with Retry-After,
 * quickly, instead of queueing requests without bound (DATABASE_POOL_MAX, DATABASE_POOL_TIMEOUT_MS,
 * DATABASE_POOL_QUEUE_MAX); a statement slower than STATEMENT_TIMEOUT_MS is 503 too (D-21).
 */

const SKIP = !DIALECTS.includes('postgres') && 'PostgreSQL is not reachable (TEST_DATABASE_URL or 127.0.0.1:5432): the pool tests need it'

/** Holds one pooled connection of the app until `release()` (a long request or a slow query). */
async function holdConnection(t: TestApp): Promise<{ release(): Promise<void> }> {
  let release!: () => void
  let held!: () => void
  const holding = new Promise<void>((resolve) => (held = resolve))
  const done = t.database.db.connection().execute(async () => {
    held()
    await new Promise<void>((resolve) => (release = resolve))
  })
  await holding
  return {
    release: async () => {
      release()
      await done
    }
  }
}

function unavailable(response: LightMyRequestResponse): void {
  problem(response, 'unavailable')
  assert.equal(response.headers['retry-after'], '5')
  assert.ok(!response.body.includes('pool') && !response.body.includes('timeout'), 'no driver message in the answer')
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now()
  const value = await work()
  return { value, ms: performance.now() - started }
}

describe('an exhausted PostgreSQL pool answers 503 at once (issue 10)', { skip: SKIP }, () => {
  // One connection; a caller waits at most 300 ms for it; at most 2 callers wait.
  const t = new TestApp('postgres', { DATABASE_POOL_MAX: '1', DATABASE_POOL_TIMEOUT_MS: '300', DATABASE_POOL_QUEUE_MAX: '2' })
  before(() => t.start())
  after(() => t.stop())

  it('should answer 503 unavailable with Retry-After after DATABASE_POOL_TIMEOUT_MS when every connection stays busy', async () => {
    const hold = await holdConnection(t)
    try {
      const { value, ms } = await timed(() => t.post('/v1/service/stats'))
      unavailable(value)
      assert.ok(ms >= 250 && ms < 2000, `answered after ${Math.round(ms)} ms`)
      assert.ok(t.logs.some((line) => line.includes('database unavailable') && line.includes('timeout exceeded when trying to connect')))
    } finally {
      await hold.release()
    }
    ok(await t.post('/v1/service/stats'))
  })

  it('should refuse at once the callers beyond DATABASE_POOL_QUEUE_MAX, and serve the ones that waited', async () => {
    const hold = await holdConnection(t)
    let answers: Array<{ value: LightMyRequestResponse; ms: number }>
    try {
      const pending = Array.from({ length: 5 }, () => timed(() => t.post('/v1/service/stats')))
      // The two callers in the queue get the connection when it comes back, well within 300 ms.
      await new Promise((resolve) => setTimeout(resolve, 100))
      await hold.release()
      answers = await Promise.all(pending)
    } finally {
      await hold.release()
    }
    const refused = answers.filter((a) => a.value.statusCode === 503)
    const served = answers.filter((a) => a.value.statusCode === 200)
    assert.equal(refused.length, 3, answers.map((a) => a.value.statusCode).join(' '))
    assert.equal(served.length, 2)
    for (const a of refused) {
      unavailable(a.value)
      assert.ok(a.ms < 100, `refused after ${Math.round(a.ms)} ms, without waiting`)
    }
    assert.ok(t.logs.some((line) => line.includes('the connection pool is exhausted')))
  })

  it('should stay ready and serve again once the pool has a free connection (D-71)', async () => {
    const ready = await t.post('/readyz', undefined, { method: 'GET', auth: null })
    assert.equal(ready.statusCode, 200)
    ok(await t.post('/v1/service/stats'))
  })
})

describe('DATABASE_POOL_QUEUE_MAX=0: no caller waits (issue 10)', { skip: SKIP }, () => {
  const t = new TestApp('postgres', { DATABASE_POOL_MAX: '1', DATABASE_POOL_QUEUE_MAX: '0' })
  before(() => t.start())
  after(() => t.stop())

  it('should answer 503 at once while the only connection is busy', async () => {
    const hold = await holdConnection(t)
    try {
      const { value, ms } = await timed(() => t.post('/v1/service/stats'))
      unavailable(value)
      assert.ok(ms < 100, `answered after ${Math.round(ms)} ms`)
    } finally {
      await hold.release()
    }
    ok(await t.post('/v1/service/stats'))
  })
})

describe('STATEMENT_TIMEOUT_MS bounds a statement stuck behind a lock (issue 10)', { skip: SKIP }, () => {
  const t = new TestApp('postgres', { STATEMENT_TIMEOUT_MS: '300' })
  before(() => t.start())
  after(() => t.stop())

  it('should answer 503 unavailable when a move waits on a row another session holds, then move once it is free', async () => {
    const customer = await createCustomer(t)
    await createService(t, 'Locked', [{ description: 'one' }, { description: 'two' }])
    const order = await createOrder(t, customer.id, 'Locked')
    const other = new pg.Client({ connectionString: t.config.database.kind === 'postgres' ? t.config.database.url : '' })
    await other.connect()
    try {
      await other.query('begin')
      await other.query('select id from orders where public_id = $1 for update', [order.transaction_id])
      const { value, ms } = await timed(() =>
        t.post('/v1/transaction/move', { customer_id: customer.id, transaction_id: order.transaction_id })
      )
      unavailable(value)
      assert.ok(ms >= 250 && ms < 3000, `answered after ${Math.round(ms)} ms`)
      await other.query('rollback')
    } finally {
      await other.end()
    }
    const moved = ok(await t.post('/v1/transaction/move', { customer_id: customer.id, transaction_id: order.transaction_id }))
    assert.equal(moved.service.position.position_number, '2', 'the failed move changed nothing')
  })
})
