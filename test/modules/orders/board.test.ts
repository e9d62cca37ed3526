import assert from 'node:assert/strict'
import { it } from 'node:test'
import { describeEachDialect, type TestApp } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { createCustomer, createItem, createOrder, createService } from '../../helpers/factories.js'
import { DELIVERY, PICKUP } from './support.js'

const BOARD = '/v1/transaction/board'
const MINUTE = 60_000

/** Runs `fn` with the app's clock stopped (times exact to the millisecond), started again after. */
async function frozen(t: TestApp, fn: () => Promise<void>): Promise<void> {
  t.clock.freeze()
  try {
    await fn()
  } finally {
    t.clock.thaw()
  }
}

const iso = (ms: number) => new Date(ms).toISOString()

describeEachDialect('transaction board: the steps of a service with their open orders (console, D-48)', (t) => {
  it('should answer every step in order, each with its open orders as cards, every field', () =>
    frozen(t, async () => {
      await createService(t, 'Board Shape', [
        { description: 'Received', button_title: 'Receive', expected_minutes: 30 },
        { description: 'Washing', button_title: 'Wash' },
        { description: 'Ready', button_title: 'Hand over', expected_minutes: 60 }
      ])
      const shirt = await createItem(t, 'Board Shape', 'Shirt', 250)
      const suit = await createItem(t, 'Board Shape', 'Suit', 1999)
      const zoe = await createCustomer(t, { firstName: 'Zoë', lastName: 'Ångström', email: 'zoe.a@example.com' })
      const solo = await createCustomer(t, { firstName: 'Prince', lastName: '', email: 'prince@example.com' })
      const start = t.clock.now()
      t.codes.next.push(40_000_001, 40_000_002)
      const first = await createOrder(t, zoe.id, 'Board Shape', { pickup: PICKUP + 3600, delivery: DELIVERY, notes: 'Ring twice' })
      ok(await t.post('/v1/receipt/add', { transaction_id: first.transaction_id, item_id: suit, quantity: 3 }))
      ok(await t.post('/v1/receipt/add', { transaction_id: first.transaction_id, item_id: shirt }))
      t.clock.advance(5 * MINUTE)
      const second = await createOrder(t, solo.id, 'board shape', { pickup: PICKUP, delivery: DELIVERY })
      t.clock.advance(2 * MINUTE)
      ok(await t.post('/v1/transaction/move', { customer_id: solo.id, transaction_id: second.transaction_id }))
      t.clock.advance(MINUTE)

      const response = await t.post(BOARD, { service_name: '  BOARD SHAPE ' })
      assert.deepEqual(ok(response), {
        service_name: 'Board Shape',
        steps: [
          {
            position_number: '1',
            description: 'Received',
            button_title: 'Receive',
            expected_minutes: 30,
            open_count: 1,
            orders: [
              {
                transaction_id: first.transaction_id,
                transaction_code: '40000001',
                customer_id: zoe.id,
                customer_name: 'Zoë Ångström',
                pickup_date_time: 'Oct 30, 2026 @ 08:15 AM',
                pickup_at: '2026-10-30T08:15:00.000Z',
                entered_at: iso(start),
                overdue: false,
                note: 'Ring twice',
                total: '62.47'
              }
            ]
          },
          {
            position_number: '2',
            description: 'Washing',
            button_title: 'Wash',
            expected_minutes: null,
            open_count: 1,
            orders: [
              {
                transaction_id: second.transaction_id,
                transaction_code: '40000002',
                customer_id: solo.id,
                customer_name: 'Prince',
                pickup_date_time: 'Oct 30, 2026 @ 07:15 AM',
                pickup_at: '2026-10-30T07:15:00.000Z',
                entered_at: iso(start + 7 * MINUTE),
                overdue: false,
                note: '',
                total: '0.00'
              }
            ]
          },
          { position_number: '3', description: 'Ready', button_title: 'Hand over', expected_minutes: 60, open_count: 0, orders: [] }
        ],
        closed_count: 0
      })
    }))

  it('should put overdue cards first, the longest past its expected time first, then by pickup time, then by code', () =>
    frozen(t, async () => {
      await createService(t, 'Board Order', [{ description: 'Waiting', expected_minutes: 30 }, { description: 'Done' }])
      const customer = await createCustomer(t)
      const start = t.clock.now()
      t.codes.next.push(50_000_009, 50_000_008, 50_000_007, 50_000_006, 50_000_005)
      const order = async (pickup: number) =>
        (await createOrder(t, customer.id, 'Board Order', { pickup, delivery: DELIVERY })).transaction_id
      const oldest = await order(PICKUP + 500) // enters at start
      t.clock.advance(10 * MINUTE)
      const older = await order(PICKUP + 900) // start + 10 min
      t.clock.advance(10 * MINUTE)
      const laterPickup = await order(PICKUP + 300) // start + 20 min
      const sameA = await order(PICKUP + 100) // code 50000006
      const sameB = await order(PICKUP + 100) // code 50000005
      const cards = async () => {
        const step = ok(await t.post(BOARD, { service_name: 'Board Order' })).steps[0]
        assert.equal(step.open_count, step.orders.length)
        return step.orders.map((c: { transaction_id: string; overdue: boolean }) => [c.transaction_id, c.overdue])
      }
      // 30 minutes at the step is not longer than 30: nothing is overdue yet.
      t.clock.advance(10 * MINUTE)
      assert.deepEqual(await cards(), [
        [sameB, false],
        [sameA, false],
        [laterPickup, false],
        [oldest, false],
        [older, false]
      ])
      t.clock.advance(1)
      assert.deepEqual(await cards(), [
        [oldest, true],
        [sameB, false],
        [sameA, false],
        [laterPickup, false],
        [older, false]
      ])
      // 45 minutes after the start: the oldest is 15 past, the older 5 past, the rest 25 minutes in.
      t.clock.advance(15 * MINUTE - 1)
      assert.equal(t.clock.now(), start + 45 * MINUTE)
      assert.deepEqual(await cards(), [
        [oldest, true],
        [older, true],
        [sameB, false],
        [sameA, false],
        [laterPickup, false]
      ])
      // A step without expected minutes has no overdue cards, however long they wait.
      ok(await t.post('/v1/transaction/move', { customer_id: customer.id, transaction_id: oldest }))
      t.clock.advance(100 * 24 * 60 * MINUTE)
      const done = ok(await t.post(BOARD, { service_name: 'Board Order' })).steps[1]
      assert.deepEqual(
        done.orders.map((c: { transaction_id: string; overdue: boolean }) => [c.transaction_id, c.overdue]),
        [[oldest, false]]
      )
    }))

  it('should leave closed orders off the steps and count them in closed_count', async () => {
    await createService(t, 'Board Counts', [{ description: 'One' }, { description: 'Two' }])
    const customer = await createCustomer(t)
    const ids: string[] = []
    for (let i = 0; i < 5; i++) ids.push((await createOrder(t, customer.id, 'Board Counts')).transaction_id)
    const move = (id: string) => t.post('/v1/transaction/move', { customer_id: customer.id, transaction_id: id })
    // Two moved to step 2, one of them closed there; one closed at step 1 by an update.
    ok(await move(ids[0]!))
    ok(await move(ids[1]!))
    ok(await move(ids[1]!))
    ok(await t.post('/v1/transaction/update', { transaction_id: ids[2], status: 'closed' }))
    const board = ok(await t.post(BOARD, { service_name: 'Board Counts' }))
    const onSteps = board.steps.map((s: { open_count: number; orders: { transaction_id: string }[] }) => {
      assert.equal(s.open_count, s.orders.length)
      return s.orders.map((c) => c.transaction_id).sort()
    })
    assert.deepEqual(onSteps, [[ids[3], ids[4]].sort(), [ids[0]]])
    assert.equal(board.closed_count, 2)
    // Statistics count every order at a step; the board only the open ones, the rest are closed.
    ok(await t.post('/v1/transaction/update', { transaction_id: ids[2], status: 'open' }))
    const reopened = ok(await t.post(BOARD, { service_name: 'Board Counts' }))
    assert.deepEqual(
      reopened.steps.map((s: { open_count: number }) => s.open_count),
      [3, 1]
    )
    assert.equal(reopened.closed_count, 1)
    // The closed list of D-57 holds the one still closed.
    const closed = ok(await t.post('/v1/transaction/list', { service_name: 'Board Counts', status: 'closed' }))
    assert.deepEqual(
      closed.transactions.map((v: { transaction_id: string }) => v.transaction_id),
      [ids[1]]
    )
  })

  it('should read the board in one statement however many orders are open', async () => {
    await createService(t, 'Board Busy', [{ description: 'One', expected_minutes: 5 }, { description: 'Two' }])
    const customer = await createCustomer(t)
    for (let i = 0; i < 210; i++) await createOrder(t, customer.id, 'Board Busy', { pickup: PICKUP + i * 60, delivery: DELIVERY })
    // The credential is read at most once (then kept until the data changes); the board in one statement.
    const boardQueries = (queries: string[]) => queries.filter((q) => !/from "api_keys"/.test(q))
    const { result, queries } = await t.countQueries(() => t.post(BOARD, { service_name: 'Board Busy' }))
    const board = ok(result)
    assert.equal(board.steps[0].open_count, 210)
    assert.equal(board.steps[0].orders.length, 210)
    assert.equal(boardQueries(queries).length, 1, queries.join('\n'))
    assert.ok(queries.length <= 2)
    const filtered = await t.countQueries(() => t.post(BOARD, { service_name: 'Board Busy', filter: 'ada' }))
    assert.equal(ok(filtered.result).steps[0].open_count, 210)
    assert.equal(boardQueries(filtered.queries).length, 1)
  })

  it('should answer 404 service_not_found for an unknown service, and 400 for a missing or wrong field', async () => {
    await createService(t, 'Board Fields', [{ description: 'One' }])
    const missing = problem(await t.post(BOARD, { service_name: 'No Such Board' }), 'service_not_found')
    assert.equal(missing.detail, 'No service with this name exists.')
    problem(await t.post(BOARD, { service_name: 'no\u0000such' }), 'service_not_found')
    problem(await t.post(BOARD, {}), 'validation_failed', ['/service_name'])
    problem(await t.post(BOARD, { service_name: 3 }), 'validation_failed', ['/service_name'])
    problem(await t.post(BOARD, { service_name: 'x'.repeat(101) }), 'validation_failed', ['/service_name'])
    for (const filter of [5, null, ['a'], { q: 'a' }, 'a\u0000b', 'f'.repeat(101), ` ${'é'.repeat(101)} `]) {
      problem(await t.post(BOARD, { service_name: 'Board Fields', filter }), 'validation_failed', ['/filter'])
    }
    problem(await t.post(BOARD, { service_name: 5, filter: 5 }), 'validation_failed', ['/service_name', '/filter'])
    problem(await t.post(BOARD, undefined, { raw: '{', contentType: 'application/json' }), 'invalid_json')
    problem(await t.post(BOARD, undefined, { raw: 'service_name=x', contentType: 'text/plain' }), 'unsupported_media_type')
    // 100 characters once trimmed is fine.
    assert.equal(ok(await t.post(BOARD, { service_name: 'Board Fields', filter: ` ${'f'.repeat(100)}\t` })).steps[0].open_count, 0)
  })

  it('should allow staff and admin only: app key and customer 403, no credentials 401', async () => {
    await createService(t, 'Board Guarded', [{ description: 'One' }])
    const customer = await createCustomer(t, { password: 'customer password 1' })
    const body = { service_name: 'Board Guarded' }
    problem(await t.post(BOARD, body, { auth: t.auth.app }), 'forbidden')
    problem(await t.post(BOARD, body, { auth: customer.auth }), 'forbidden')
    problem(await t.post(BOARD, body, { auth: null }), 'unauthenticated')
    assert.deepEqual(ok(await t.post(BOARD, body, { auth: t.auth.admin })), ok(await t.post(BOARD, body)))
  })
})

describeEachDialect(
  'transaction board in the configured zone (D-51)',
  (t) => {
    it('should write pickup_date_time in TIME_ZONE and the instants in UTC', async () => {
      await createService(t, 'Board Zone', [{ description: 'One' }])
      const customer = await createCustomer(t)
      await createOrder(t, customer.id, 'Board Zone')
      const card = ok(await t.post(BOARD, { service_name: 'Board Zone' })).steps[0].orders[0]
      assert.equal(card.pickup_date_time, 'Oct 30, 2026 @ 03:15 AM')
      assert.equal(card.pickup_at, '2026-10-30T07:15:00.000Z')
    })
  },
  { TIME_ZONE: 'America/New_York' }
)
