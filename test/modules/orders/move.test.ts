import assert from 'node:assert/strict'
import { before, it } from 'node:test'
import { sql } from 'kysely'
import { describeEachDialect } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { createOrder, createService } from '../../helpers/factories.js'
import { countRows, orderFixture } from './support.js'

describeEachDialect('move transaction (D-55)', (t) => {
  let f: Awaited<ReturnType<typeof orderFixture>>
  before(async () => {
    f = await orderFixture(t)
  })

  const move = (transactionId: string, extra: Record<string, unknown> = {}, headers?: Record<string, string>) =>
    t.post('/v1/transaction/move', { customer_id: f.owner.id, transaction_id: transactionId, ...extra }, headers ? { headers } : {})

  it('should advance one step per move, answer the full view, then close at the last step and stay there', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    const second = ok(await move(o.transaction_id))
    assert.deepEqual(second.service.position, {
      position_number: '2',
      position_description: 'Cleaning',
      button_title: 'Start cleaning',
      events: [{ event: 'text' }, { event: 'trak' }]
    })
    assert.deepEqual(second.service.progress_bar, { total_steps: 3, percentage: 66.66666666666666 })
    assert.equal(second.status, 'open')
    const third = ok(await move(o.transaction_id))
    assert.deepEqual(third.service.progress_bar, { total_steps: 3, percentage: 100 })
    assert.equal(third.status, 'open')
    const closed = ok(await move(o.transaction_id))
    assert.equal(closed.service.position.position_number, '3')
    assert.equal(closed.status, 'closed')
    problem(await move(o.transaction_id), 'transaction_closed')
    const history = ok(await t.post(`/v1/transaction/${o.transaction_id}/history`))
    assert.deepEqual(
      history.history.map((h: Record<string, string>) => [h.type, h.position_number, h.description, h.actor, h.by]),
      [
        ['created', '1', 'Picked up', 'staff', 'test staff'],
        ['moved', '2', 'Cleaning', 'staff', 'test staff'],
        ['moved', '3', 'Delivered', 'staff', 'test staff'],
        ['closed', '3', 'Delivered', 'staff', 'test staff']
      ]
    )
  })

  it("should write the entered step's events to the outbox in the same transaction, and none on closing", async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    const channels = async () =>
      (
        await t.database.db
          .selectFrom('outbox')
          .innerJoin('orders', 'orders.id', 'outbox.order_id')
          .select(['outbox.channel', 'outbox.payload'])
          .where('orders.public_id', '=', o.transaction_id)
          .orderBy('outbox.id')
          .execute()
      ).map((row) => `${row.channel}@${JSON.parse(row.payload).position}`)
    assert.deepEqual(await channels(), ['email@1'])
    ok(await move(o.transaction_id))
    assert.deepEqual(await channels(), ['email@1', 'text@2', 'trak@2'])
    ok(await move(o.transaction_id))
    ok(await move(o.transaction_id))
    assert.deepEqual(await channels(), ['email@1', 'text@2', 'trak@2'])
  })

  it('should answer 409 position_changed when the expected position is stale, changing nothing', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    ok(await move(o.transaction_id, { position_number: 1 }))
    const [history, outbox] = [await countRows(t, 'order_history'), await countRows(t, 'outbox')]
    const body = problem(await move(o.transaction_id, { position_number: '1' }), 'position_changed')
    assert.equal(body.detail, 'The transaction is no longer at the step you saw; it is at step 2.')
    assert.deepEqual([await countRows(t, 'order_history'), await countRows(t, 'outbox')], [history, outbox])
    assert.equal(ok(await t.post(`/v1/transaction/${o.transaction_id}`)).service.position.position_number, '2')
    ok(await move(o.transaction_id, { position_number: '2' }))
  })

  it('should answer 404 when customer_id is not the owner, or the transaction does not exist', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    problem(await move(o.transaction_id, { customer_id: f.other.id }), 'transaction_not_found')
    problem(await move('trx_missing'), 'transaction_not_found')
    assert.equal(ok(await t.post(`/v1/transaction/${o.transaction_id}`)).service.position.position_number, '1')
  })

  it('should be staff only: customers and app keys 403, no credentials 401', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    problem(
      await t.post('/v1/transaction/move', { customer_id: f.owner.id, transaction_id: o.transaction_id }, { auth: f.owner.auth }),
      'forbidden'
    )
    problem(
      await t.post('/v1/transaction/move', { customer_id: f.owner.id, transaction_id: o.transaction_id }, { auth: t.auth.app }),
      'forbidden'
    )
    problem(
      await t.post('/v1/transaction/move', { customer_id: f.owner.id, transaction_id: o.transaction_id }, { auth: null }),
      'unauthenticated'
    )
    ok(await t.post('/v1/transaction/move', { customer_id: f.owner.id, transaction_id: o.transaction_id }, { auth: t.auth.admin }))
  })

  it('should reject bad input with validation_failed', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    problem(await t.post('/v1/transaction/move', { transaction_id: o.transaction_id }), 'validation_failed', ['/customer_id'])
    problem(await t.post('/v1/transaction/move', { customer_id: f.owner.id }), 'validation_failed', ['/transaction_id'])
    problem(await move(o.transaction_id, { position_number: 0 }), 'validation_failed', ['/position_number'])
    problem(await move(o.transaction_id, { position_number: 'two' }), 'validation_failed', ['/position_number'])
    problem(await move(o.transaction_id, { position_number: 1.5 }), 'validation_failed', ['/position_number'])
    problem(await move(o.transaction_id, { customer_id: 5 }), 'validation_failed', ['/customer_id'])
    assert.equal(ok(await t.post(`/v1/transaction/${o.transaction_id}`)).service.position.position_number, '1')
  })

  it('should never advance twice for a retried move with the same Idempotency-Key (D-52)', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    const first = ok(await move(o.transaction_id, {}, { 'idempotency-key': `move-${o.transaction_id}` }))
    const retry = ok(await move(o.transaction_id, {}, { 'idempotency-key': `move-${o.transaction_id}` }))
    assert.deepEqual(retry, first)
    assert.equal(ok(await t.post(`/v1/transaction/${o.transaction_id}`)).service.position.position_number, '2')
  })

  it('should advance exactly as many steps as moves succeeded when 20 moves race on one transaction', async () => {
    // A service long enough that no move reaches the end.
    const name = 'Long Service'
    ok(await t.post('/v1/service/create', { service_name: name, description: 'Step 1' }))
    for (let i = 2; i <= 30; i++) ok(await t.post('/v1/service/add', { service_name: name, description: `Step ${i}` }))
    const o = await createOrder(t, f.owner.id, name)
    const responses = await Promise.all(Array.from({ length: 20 }, () => move(o.transaction_id)))
    const succeeded = responses.filter((r) => r.statusCode === 200)
    for (const r of responses) assert.ok([200, 409, 503].includes(r.statusCode), r.body)
    const positions = succeeded.map((r) => Number(r.json().service.position.position_number)).sort((a, b) => a - b)
    // Each success saw a different step: 2, 3, 4, … with none repeated.
    assert.deepEqual(
      positions,
      Array.from({ length: succeeded.length }, (_, i) => i + 2)
    )
    const view = ok(await t.post(`/v1/transaction/${o.transaction_id}`))
    assert.equal(Number(view.service.position.position_number), 1 + succeeded.length)
    assert.equal(succeeded.length, 20)
    const stats = ok(await t.post('/v1/service/stats'))
    const entries = stats.service_stats.find(
      (s: { service: Array<Record<string, unknown>> }) => s.service[0]!.service_name === name
    ).service
    assert.equal(entries[0].total_orders, 1)
    assert.equal(entries[20].position_count, 1)
  })

  it('should race 20 moves that all expect step 1: exactly one succeeds, the rest are position_changed', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    const responses = await Promise.all(Array.from({ length: 20 }, () => move(o.transaction_id, { position_number: 1 })))
    assert.equal(responses.filter((r) => r.statusCode === 200).length, 1)
    for (const r of responses.filter((r) => r.statusCode !== 200)) problem(r, 'position_changed')
    assert.equal(ok(await t.post(`/v1/transaction/${o.transaction_id}`)).service.position.position_number, '2')
  })

  it("should write the step's messages in one statement, in event order, and both counters in one (issue 7)", async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    const before = await stepCounts()
    const { result, queries } = await t.countQueries(() => move(o.transaction_id))
    ok(result)
    // One statement; on PostgreSQL it locks the two rows in id order first (orders.repository.ts),
    // inside the move's one statement for the order, its counters, its history and the outbox.
    const counters = t.database.dialect.supportsRowLocks
      ? /"moved" as \(with "step_locks" as \(select "id" from "service_steps"/
      : /^update "service_steps"/
    assert.equal(queries.filter((q) => counters.test(q)).length, 1)
    // On PostgreSQL the messages are written by the move's one statement for the order, its history and the outbox.
    assert.equal(
      queries.filter((q) => q.startsWith(t.database.dialect.supportsWritesInWith ? 'with "entered" as' : 'insert into "outbox"')).length,
      1
    )
    // Step 2 of Dry Cleaning announces text, then trak: two rows, ids in that order.
    const rows = await t.database.db.selectFrom('outbox').select(['channel', 'payload']).orderBy('id', 'desc').limit(2).execute()
    assert.deepEqual(
      rows.reverse().map((r) => [r.channel, JSON.parse(r.payload).transaction_id, JSON.parse(r.payload).position]),
      [
        ['text', o.transaction_id, 2],
        ['trak', o.transaction_id, 2]
      ]
    )
    // One order left step 1 and entered step 2; nothing else changed.
    const after = await stepCounts()
    assert.deepEqual(
      after.map((count, i) => count - before[i]!),
      before.map((_, i) => (i === 0 ? -1 : i === 1 ? 1 : 0))
    )
  })

  it('should answer from what it read under the lock, with no read after its writes (issue 7)', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    const { result, queries } = await t.countQueries(() => move(o.transaction_id))
    const view = ok(result)
    const locks = t.database.dialect.supportsRowLocks
    const kinds = queries.filter((q) => !q.includes('"api_keys"')).map((q) => q.split(' ').slice(0, 3).join(' '))
    assert.deepEqual(
      kinds,
      locks
        ? [
            'begin',
            // The order row for update and its service in share mode, one statement.
            'select "o"."service_id" from',
            'select "orders"."id", "orders"."public_id",',
            // The order's step, both counters (their rows locked in id order first), its history
            // entry and the step's messages, one statement.
            'with "entered" as',
            'commit'
          ]
        : [
            'begin',
            'select "orders"."id", "orders"."public_id",',
            'update "orders" set',
            'update "service_steps" set',
            'insert into "order_history"',
            'insert into "outbox"',
            'commit'
          ]
    )
    if (locks) {
      const combined = queries.find((q) => q.startsWith('with "entered" as'))!
      assert.match(
        combined,
        /^with "entered" as \(update "orders" set .*\), "moved" as \(with "step_locks" as \(select "id" from "service_steps" where "id" in \(\$\d+, \$\d+\) order by "id" for no key update\) update "service_steps" set .*\), "entry" as \(insert into "order_history" .*\) insert into "outbox" /
      )
    }
    // What it answered is what a read now shows, receipt included.
    assert.deepEqual(view, ok(await t.post(`/v1/transaction/${o.transaction_id}`)))
  })

  it('should answer the full view with its receipt after each move and on closing, as a read shows it', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    ok(await t.post('/v1/receipt/add', { transaction_id: o.transaction_id, item_id: Number(f.shirt), quantity: '3' }))
    ok(await t.post('/v1/receipt/add', { transaction_id: o.transaction_id, item_id: Number(f.suit) }))
    for (const status of ['open', 'open', 'closed']) {
      const view = ok(await move(o.transaction_id))
      assert.equal(view.status, status)
      assert.equal(view.receipt.length, 2)
      assert.equal(view.total, '27.49')
      assert.deepEqual(view, ok(await t.post(`/v1/transaction/${o.transaction_id}`)))
    }
  })

  it("should move an order whose service another transaction changed while the move waited for the order's lock", {
    skip: t.dialect !== 'postgres' && 'PostgreSQL only: SQLite has one writer, nothing waits on a row'
  }, async () => {
    await createService(t, 'Wash and Fold', [
      { description: 'Collected', button_title: 'Collect' },
      { description: 'Washed', button_title: 'Wash', events: ['trak'] }
    ])
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    const steps = await t.database.db
      .selectFrom('service_steps')
      .innerJoin('services', 'services.id', 'service_steps.service_id')
      .select(['services.id as service_id', 'services.name', 'service_steps.id', 'service_steps.position'])
      .where('services.name', 'in', ['Dry Cleaning', 'Wash and Fold'])
      .where('service_steps.position', '=', 1)
      .execute()
    const from = steps.find((s) => s.name === 'Dry Cleaning')!
    const to = steps.find((s) => s.name === 'Wash and Fold')!
    // Another use case, caught after putting the order at step 1 of another service (counters
    // too, as a service change does) and before committing. The move's one-statement lock waits
    // for it, then re-checks the order against the old service row, loses it, and falls back.
    const other = await t.database.db.startTransaction().execute()
    try {
      await other
        .updateTable('orders')
        .set({ service_id: to.service_id, step_id: to.id })
        .where('public_id', '=', o.transaction_id)
        .execute()
      await other
        .updateTable('service_steps')
        .set((eb) => ({ order_count: eb('order_count', '-', 1) }))
        .where('id', '=', from.id)
        .execute()
      await other
        .updateTable('service_steps')
        .set((eb) => ({ order_count: eb('order_count', '+', 1) }))
        .where('id', '=', to.id)
        .execute()
      const moving = move(o.transaction_id)
      for (let waited = 0; ; waited += 20) {
        const { rows } = await sql<{
          n: string
        }>`select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(
          t.database.db
        )
        if (Number(rows[0]!.n) === 1) break
        if (waited > 10_000) throw new Error('the move never waited for the lock')
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      await other.commit().execute()
      const view = ok(await moving)
      assert.equal(view.service.service_name, 'Wash and Fold')
      assert.deepEqual(view.service.position, {
        position_number: '2',
        position_description: 'Washed',
        button_title: 'Wash',
        events: [{ event: 'trak' }]
      })
      assert.deepEqual(view, ok(await t.post(`/v1/transaction/${o.transaction_id}`)))
    } catch (error) {
      await other
        .rollback()
        .execute()
        .catch(() => {})
      throw error
    }
  })

  it('should move many orders at once in both id orders of their steps without a deadlock, counters exact (D-44)', {
    skip: t.dialect !== 'postgres' && 'PostgreSQL only: SQLite has one writer and no row locks'
  }, async () => {
    // Step 2 inserted later has the highest id: 1 -> 2 goes up in step ids, 2 -> 3 goes down.
    await createService(t, 'Zig Zag', [
      { description: 'First', button_title: 'First' },
      { description: 'Last', button_title: 'Last' }
    ])
    ok(await t.post('/v1/service/add', { service_name: 'Zig Zag', description: 'Middle', position_number: 2 }))
    const orders = await Promise.all(Array.from({ length: 40 }, () => createOrder(t, f.owner.id, 'Zig Zag')))
    for (const o of orders.slice(0, 20)) ok(await move(o.transaction_id))
    const deadlocks = async () =>
      Number(
        (await sql<{ n: string }>`select deadlocks as n from pg_stat_database where datname = current_database()`.execute(t.database.db))
          .rows[0]!.n
      )
    const before = await deadlocks()
    const responses = await Promise.all(orders.map((o) => move(o.transaction_id)))
    for (const response of responses) ok(response)
    assert.equal(await deadlocks(), before, 'no transaction was chosen as a deadlock victim')
    const stats = ok(await t.post('/v1/service/stats'))
    const zigZag = stats.service_stats.find(
      (s: { service: Array<Record<string, unknown>> }) => s.service[0]!.service_name === 'Zig Zag'
    ).service
    // First, Middle, Last: 20 orders went on to Middle, 20 from Middle to Last.
    assert.deepEqual(
      zigZag.map((step: Record<string, unknown>) => step.position_count),
      [0, 20, 20]
    )
  })

  /** order_count of Dry Cleaning's steps, by position. */
  async function stepCounts(): Promise<number[]> {
    const rows = await t.database.db
      .selectFrom('service_steps')
      .innerJoin('services', 'services.id', 'service_steps.service_id')
      .select(['service_steps.order_count'])
      .where('services.name', '=', 'Dry Cleaning')
      .orderBy('service_steps.position')
      .execute()
    return rows.map((r) => Number(r.order_count))
  }
})
