import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { sha256Hex } from '../../src/common/crypto.js'
import { basic, DIALECTS } from '../helpers/app.js'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js'
import type { Child } from '../helpers/processes.js'
import { webhookSecret } from '../modules/notifications/support/dispatchers.js'
import { type HttpReceiver, startHttpReceiver } from '../modules/notifications/support/receivers.js'
import {
  type Answer,
  type ApiProcess,
  eventually,
  ok,
  post,
  query,
  redisReachable,
  sharedEnv,
  startApi,
  startWorker,
  stopAll
} from './support.js'

/**
 * Issue 10, item 2: two API processes and two dispatcher workers on one PostgreSQL database.
 * Concurrent moves, receipt adds and idempotent retries go through both APIs; afterwards no update
 * is lost, every outbox message is delivered exactly once, and the statistics equal the rows.
 */

const SERVICE = 'Scale Wash'
// Eight steps; the events each step emits when an order enters it (D-60). Step 1 is entered at create.
const STEP_EVENTS: string[][] = [['trak'], ['text', 'trak'], [], ['trak'], ['text'], ['text', 'trak'], ['trak'], ['text', 'trak']]
const STEPS = STEP_EVENTS.length
const PICKUP = 1_793_344_500
const DELIVERY = 1_793_430_900

const REDIS_URL = 'redis://127.0.0.1:6379'
const redis = await redisReachable(REDIS_URL)

/** Alternates between the two APIs: request i goes to A when i is even, to B when odd. */
function either(apis: ApiProcess[], i: number): ApiProcess {
  return apis[i % apis.length]!
}

function statuses(answers: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const a of answers) {
    const key = a.status === 200 ? '200' : `${a.status} ${(a.body as { code?: string }).code}`
    counts[key] = (counts[key] ?? 0) + 1
  }
  return counts
}

describe('two API processes and two workers on one PostgreSQL (issue 10)', {
  skip:
    !DIALECTS.includes('postgres') && 'PostgreSQL is not reachable (TEST_DATABASE_URL or 127.0.0.1:5432): the multi-process test needs it'
}, () => {
  let database: TestDatabase
  let receiver: HttpReceiver
  const children: Child[] = []
  let apis: ApiProcess[] = []
  let a: ApiProcess
  let b: ApiProcess
  let customer: { id: string; email: string; password: string }
  let shirt: string

  before(async () => {
    database = await createTestDatabase('postgres')
    receiver = await startHttpReceiver()
    const env = sharedEnv(database, {
      WEBHOOK_URL: receiver.url,
      WEBHOOK_SECRET: webhookSecret(),
      SMS_WEBHOOK_URL: receiver.url,
      // The APIs sit behind a proxy here, so each test can be its own client address (D-14 keys).
      TRUST_PROXY: 'loopback',
      // Shared rate-limit counters when Redis runs here; per process otherwise (the test says which).
      ...(redis ? { REDIS_URL } : {}),
      // These tests count what concurrent writes did, not how fast: on a loaded machine 160 moves at
      // once may wait longer than the default 3 s for a connection (then 503, a lost move).
      DATABASE_POOL_TIMEOUT_MS: '60000',
      STATEMENT_TIMEOUT_MS: '60000'
    })
    // Both APIs start at once on the empty database: migrations and the bootstrap key are safe
    // to run concurrently (D-04).
    apis = await Promise.all([startApi('A', env, children), startApi('B', env, children)])
    ;[a, b] = apis as [ApiProcess, ApiProcess]
    await Promise.all([startWorker(env, children), startWorker(env, children)])

    // The catalogue and a customer, through A.
    const [first, ...rest] = STEP_EVENTS
    ok(await post(a, '/v1/service/create', { service_name: SERVICE, description: 'Step 1', button_title: 'Go', events: first }))
    for (const [i, events] of rest.entries())
      ok(await post(a, '/v1/service/add', { service_name: SERVICE, description: `Step ${i + 2}`, events }))
    shirt = ok(await post(b, '/v1/item/create', { service_name: SERVICE, title: 'Shirt', price: 250 })).item_id
    const password = 'first password 1'
    const email = `scale.${randomBytes(4).toString('hex')}@example.com`
    const created = ok(await post(a, '/v1/customer/create', { email, zip: '10001', password }))
    customer = { id: created.customer_id, email, password }
    ok(await post(b, '/v1/customer/update', { customer: { customer_id: customer.id, phone: '2125550123' } }))
  })

  after(async () => {
    await stopAll(children)
    await Promise.all(children.map((child) => child.stop()))
    await receiver?.close()
    await database?.drop()
  })

  /** Places `count` orders, alternating between the APIs, all at once. */
  async function placeOrders(count: number): Promise<string[]> {
    const answers = await Promise.all(
      Array.from({ length: count }, (_unused, i) =>
        post(either(apis, i), '/v1/transaction/create', {
          customer_id: customer.id,
          service_name: SERVICE,
          pickup_timestamp: PICKUP,
          delivery_timestamp: DELIVERY
        })
      )
    )
    return answers.map((answer) => ok(answer).transaction_id as string)
  }

  async function position(id: string): Promise<{ position: number; status: string }> {
    const view = ok(await post(a, `/v1/transaction/${id}`))
    return { position: Number(view.service.position.position_number), status: view.status }
  }

  it('should lose no move: every order advances by exactly its successful moves, across both APIs', async () => {
    // 20 orders moved 6 times each (all succeed) and 4 orders moved 10 times each (7 advances, one
    // close, two 409s), every move of every order at once, alternating between A and B.
    const short = await placeOrders(20)
    const long = await placeOrders(4)
    const moves = [
      ...short.flatMap((id) => Array.from({ length: 6 }, () => id)),
      ...long.flatMap((id) => Array.from({ length: 10 }, () => id))
    ]
    const answers = await Promise.all(
      moves.map((id, i) => post(either(apis, i), '/v1/transaction/move', { customer_id: customer.id, transaction_id: id }))
    )

    const successes = new Map<string, number>()
    answers.forEach((answer, i) => {
      if (answer.status === 200) successes.set(moves[i]!, (successes.get(moves[i]!) ?? 0) + 1)
    })
    assert.deepEqual(statuses(answers), { '200': 20 * 6 + 4 * STEPS, '409 transaction_closed': 4 * (10 - STEPS) })
    for (const id of short) {
      assert.equal(successes.get(id), 6)
      assert.deepEqual(await position(id), { position: 7, status: 'open' })
    }
    for (const id of long) {
      assert.equal(successes.get(id), STEPS)
      assert.deepEqual(await position(id), { position: STEPS, status: 'closed' })
    }
    // Each success wrote one history row; none was lost or doubled.
    const history = await query<{ type: string; n: number }>(
      database,
      `select type, count(*)::int as n from order_history where type in ('moved', 'closed') group by type order by type`
    )
    assert.deepEqual(history, [
      { type: 'closed', n: 4 },
      { type: 'moved', n: 20 * 6 + 4 * (STEPS - 1) }
    ])
  })

  it('should count all 50 concurrent receipt adds through both APIs: quantity 50', async () => {
    const [order] = await placeOrders(1)
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_unused, i) => post(either(apis, i), '/v1/receipt/add', { transaction_id: order, item_id: shirt }))
    )
    assert.deepEqual(statuses(answers), { '200': 50 })
    const view = ok(await post(b, `/v1/transaction/${order}`))
    assert.deepEqual([view.receipt.length, view.receipt[0].quantity, view.total], [1, '50', '125.00'])
  })

  it('should apply a write retried with one Idempotency-Key on both APIs exactly once (D-52)', async () => {
    const [order] = await placeOrders(1)
    const key = (name: string) => ({ 'idempotency-key': `${name}-${order}` })
    // A move, a receipt add and an order placement, each sent 10 times at once with one key, 5 to each API.
    const moves = await Promise.all(
      Array.from({ length: 10 }, (_unused, i) =>
        post(either(apis, i), '/v1/transaction/move', { customer_id: customer.id, transaction_id: order }, { headers: key('move') })
      )
    )
    const adds = await Promise.all(
      Array.from({ length: 10 }, (_unused, i) =>
        post(either(apis, i), '/v1/receipt/add', { transaction_id: order, item_id: shirt, quantity: 3 }, { headers: key('add') })
      )
    )
    const body = { customer_id: customer.id, service_name: SERVICE, pickup_timestamp: PICKUP, delivery_timestamp: DELIVERY, notes: order }
    const creates = await Promise.all(
      Array.from({ length: 10 }, (_unused, i) => post(either(apis, i), '/v1/transaction/create', body, { headers: key('create') }))
    )
    for (const answers of [moves, adds, creates]) {
      assert.deepEqual(statuses(answers), { '200': 10 })
      for (const answer of answers) assert.equal(answer.text, answers[0]!.text, 'every repeat answers the first response')
    }
    // And once more later, on the other API than the first: still the first answer.
    assert.equal(
      (await post(b, '/v1/transaction/move', { customer_id: customer.id, transaction_id: order }, { headers: key('move') })).text,
      moves[0]!.text
    )

    assert.deepEqual(await position(order!), { position: 2, status: 'open' })
    const view = ok(await post(a, `/v1/transaction/${order}`))
    assert.deepEqual([view.receipt.length, view.receipt[0].quantity], [1, '3'])
    const placed = await query<{ n: number }>(database, `select count(*)::int as n from orders where note = $1`, [order])
    assert.equal(placed[0]!.n, 1)
  })

  it('should see a password changed through B at once in A, whose credential cache had it (D-13)', async () => {
    const [order] = await placeOrders(1)
    const oldAuth = basic(customer.email, customer.password)
    ok(await post(a, `/v1/transaction/${order}`, undefined, { auth: oldAuth })) // verified and cached in A
    // A reset token as the e-mailed link would carry it (D-36); B spends it and sets a new password.
    const token = randomBytes(32).toString('base64url')
    const now = Date.now()
    await query(database, 'insert into password_reset_tokens (token_hash, customer_id, created_at, expires_at) values ($1, $2, $3, $4)', [
      sha256Hex(token),
      customer.id,
      now,
      now + 3_600_000
    ])
    const password = 'second password 2'
    ok(await post(b, '/v1/customer/reset_password/confirm', { token, password }))
    assert.equal((await post(a, `/v1/transaction/${order}`, undefined, { auth: oldAuth })).status, 401)
    ok(await post(a, `/v1/transaction/${order}`, undefined, { auth: basic(customer.email, password) }))
    customer.password = password
  })

  it(`should share sign-in failure counts between the APIs through Redis (D-14)`, {
    skip: !redis && `Redis is not reachable at ${REDIS_URL}: rate limits stay per process`
  }, async () => {
    // A fresh client address and e-mail: counters in the shared Redis belong to this test alone.
    const address = `10.${[1, 2, 3].map(() => Math.floor(Math.random() * 250) + 1).join('.')}`
    const headers = { 'x-forwarded-for': address }
    const email = `nobody.${randomBytes(4).toString('hex')}@example.com`
    // D-14: 10 failed sign-ins per e-mail, 5 on each API; the 11th is refused on either.
    for (let i = 0; i < 10; i++) {
      const answer = await post(either(apis, i), '/v1/customer/signin', { email, password: 'wrong password' }, { headers })
      assert.equal(answer.status, 401, answer.text)
    }
    for (const api of apis) {
      const limited = await post(api, '/v1/customer/signin', { email, password: 'wrong password' }, { headers })
      assert.equal(limited.status, 429, `${api.name}: ${limited.text}`)
      assert.ok(Number(limited.headers.get('retry-after')) > 0)
    }
  })

  it('should deliver every outbox message exactly once with two workers, and keep the statistics equal to the rows', async () => {
    await eventually('the outbox to drain', async () => {
      const [row] = await query<{ n: number }>(database, `select count(*)::int as n from outbox where status = 'pending'`)
      return row!.n === 0
    })
    // Step events only (texts and webhooks, D-60); e-mails, if any, go to files here.
    const rows = await query<{ event_id: string; channel: string; status: string; attempts: number }>(
      database,
      `select event_id, channel, status, attempts from outbox where channel in ('text', 'trak')`
    )
    assert.ok(rows.length > 200, `only ${rows.length} outbox rows`)
    assert.deepEqual(
      rows.filter((r) => r.status !== 'delivered'),
      [],
      'every message delivered (the customer has a phone; the receiver answers 200)'
    )

    // What the orders' steps say should have been written: the events of every step each order entered.
    const orders = await query<{ position: number; n: number }>(
      database,
      `select s.position, count(*)::int as n from orders o join service_steps s on s.id = o.step_id group by s.position`
    )
    const expected = { text: 0, trak: 0 }
    for (const { position, n } of orders) {
      for (const events of STEP_EVENTS.slice(0, position)) for (const event of events) expected[event as 'text' | 'trak'] += n
    }
    const written = { text: rows.filter((r) => r.channel === 'text').length, trak: rows.filter((r) => r.channel === 'trak').length }
    assert.deepEqual(written, expected, 'one outbox row per event of each step entered (D-60)')

    // The receiver saw each event id exactly once: webhooks carry `webhook-id`, texts `idempotency-key`.
    const seen = new Map<string, number>()
    for (const request of receiver.requests) {
      const id = (request.headers['webhook-id'] ?? request.headers['idempotency-key']) as string | undefined
      assert.ok(id !== undefined, 'every delivery names its event')
      seen.set(id, (seen.get(id) ?? 0) + 1)
    }
    assert.deepEqual(
      [...seen.values()].filter((n) => n !== 1),
      [],
      'no event delivered twice'
    )
    assert.deepEqual([...seen.keys()].sort(), rows.map((r) => r.event_id).sort(), 'every event delivered')
    // Each trak delivery added its one `tracked` history row, none twice (D-56, D-61).
    const tracked = await query<{ n: number }>(database, `select count(*)::int as n from order_history where type = 'tracked'`)
    assert.equal(tracked[0]!.n, expected.trak)

    // D-44 on both APIs: the statistics (read from counters) equal the rows, step by step.
    const byStep = new Map(orders.map((o) => [o.position, o.n]))
    const total = orders.reduce((sum, o) => sum + o.n, 0)
    for (const api of apis) {
      const stats = ok(await post(api, '/v1/service/stats'))
      const entries = (stats.service_stats as Array<{ service: Array<Record<string, unknown>> }>).find(
        (s) => s.service[0]!.service_name === SERVICE
      )!.service
      assert.equal(entries.length, STEPS)
      assert.equal(entries[0]!.total_orders, total)
      for (const entry of entries)
        assert.equal(
          entry.position_count,
          byStep.get(Number(entry.position_number)) ?? 0,
          `${api.name}: step ${String(entry.position_number)}`
        )
    }
  })

  it('should stop every process with exit status 0 on SIGTERM (D-72)', async () => {
    const codes = await stopAll(children.splice(0))
    assert.deepEqual(codes, [0, 0, 0, 0])
  })
})
