import assert from 'node:assert/strict'
import { before, it } from 'node:test'
import { sql } from 'kysely'
import { describeEachDialect } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { createOrder, createService } from '../../helpers/factories.js'
import { countRows, DELIVERY, orderFixture, PICKUP } from './support.js'

describeEachDialect('update transaction (D-53)', (t) => {
  let f: Awaited<ReturnType<typeof orderFixture>>
  before(async () => {
    f = await orderFixture(t)
    await createService(t, 'Home Cleaning', [
      { description: 'Booked', button_title: 'Confirm', events: ['email', 'text'] },
      { description: 'Done' }
    ])
  })

  const update = (body: Record<string, unknown>, auth?: string) =>
    t.post('/v1/transaction/update', body, auth === undefined ? {} : { auth })

  it('should change only the fields sent and answer the short update view with transaction_id', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning', { notes: 'first' })
    const updated = ok(await update({ transaction_id: o.transaction_id, note: 'second', pickup_timestamp: String(PICKUP + 3600) }))
    assert.deepEqual(updated, {
      transaction_id: o.transaction_id,
      service_name: 'Dry Cleaning',
      pickup_date: '2026-10-30',
      pickup_time: '08:15',
      delivery_date: '2026-10-31',
      delivery_time: '07:15',
      note: 'second',
      status: 'open'
    })
    const view = ok(await t.post(`/v1/transaction/${o.transaction_id}`))
    assert.deepEqual([view.note, view.pickup_time, view.delivery_time, view.status], ['second', '08:15:00', '07:15:00', 'open'])
    assert.deepEqual(ok(await update({ transaction_id: o.transaction_id })), updated)
  })

  it('should clear the note with an empty string', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning', { notes: 'keep?' })
    assert.equal(ok(await update({ transaction_id: o.transaction_id, note: '' })).note, '')
  })

  it('should take notes as another name for note, as create takes both, refusing the two when they differ', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning', { notes: 'first' })
    assert.equal(ok(await update({ transaction_id: o.transaction_id, notes: 'by notes' })).note, 'by notes')
    assert.equal(ok(await t.post(`/v1/transaction/${o.transaction_id}`)).note, 'by notes')
    assert.equal(ok(await update({ transaction_id: o.transaction_id, notes: 'same', note: 'same' }, f.owner.auth)).note, 'same')
    const body = problem(await update({ transaction_id: o.transaction_id, notes: 'one', note: 'two' }), 'validation_failed', ['/note'])
    assert.deepEqual(body.errors, [{ field: '/note', message: 'must equal notes when both are sent' }])
    problem(await update({ transaction_id: o.transaction_id, notes: 'x'.repeat(1001) }), 'validation_failed', ['/notes'])
    problem(await update({ transaction_id: o.transaction_id, notes: 42 }), 'validation_failed', ['/notes'])
    assert.equal(ok(await t.post(`/v1/transaction/${o.transaction_id}`)).note, 'same')
  })

  it('should close and reopen, recording closed and reopened in the history', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    assert.equal(ok(await update({ transaction_id: o.transaction_id, status: 'closed' })).status, 'closed')
    assert.equal(ok(await update({ transaction_id: o.transaction_id, status: 'closed' })).status, 'closed')
    assert.equal(ok(await update({ transaction_id: o.transaction_id, status: 'open' })).status, 'open')
    const history = ok(await t.post(`/v1/transaction/${o.transaction_id}/history`))
    assert.deepEqual(
      history.history.map((h: Record<string, string>) => [h.type, h.position_number, h.description]),
      [
        ['created', '1', 'Picked up'],
        ['closed', '1', 'Picked up'],
        ['reopened', '1', 'Picked up']
      ]
    )
  })

  it("should put the transaction at step 1 of a new service, move the counters and emit that step's events", async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    ok(await t.post('/v1/transaction/move', { customer_id: f.owner.id, transaction_id: o.transaction_id }))
    const statsBefore = ok(await t.post('/v1/service/stats'))
    const updated = ok(await update({ transaction_id: o.transaction_id, service_name: 'home cleaning' }))
    assert.equal(updated.service_name, 'Home Cleaning')
    const view = ok(await t.post(`/v1/transaction/${o.transaction_id}`))
    assert.deepEqual(view.service.position, {
      position_number: '1',
      position_description: 'Booked',
      button_title: 'Confirm',
      events: [{ event: 'email' }, { event: 'text' }]
    })
    const counts = (
      stats: { service_stats: Array<{ service: Array<{ position_count: number; total_orders?: number; service_name?: string }> }> },
      name: string
    ) => stats.service_stats.find((s) => s.service[0]!.service_name === name)!.service.map((e) => e.position_count)
    const statsAfter = ok(await t.post('/v1/service/stats'))
    const dryBefore = counts(statsBefore, 'Dry Cleaning')
    assert.deepEqual(counts(statsAfter, 'Dry Cleaning'), [dryBefore[0], dryBefore[1]! - 1, dryBefore[2]])
    assert.deepEqual(counts(statsAfter, 'Home Cleaning'), [counts(statsBefore, 'Home Cleaning')[0]! + 1, 0])
    const outbox = await t.database.db
      .selectFrom('outbox')
      .innerJoin('orders', 'orders.id', 'outbox.order_id')
      .select(['outbox.channel', 'outbox.payload'])
      .where('orders.public_id', '=', o.transaction_id)
      .orderBy('outbox.id')
      .execute()
    assert.deepEqual(
      outbox.map((row) => `${row.channel}:${JSON.parse(row.payload).service_name}@${JSON.parse(row.payload).position}`),
      ['email:Dry Cleaning@1', 'text:Dry Cleaning@2', 'trak:Dry Cleaning@2', 'email:Home Cleaning@1', 'text:Home Cleaning@1']
    )
  })

  it('should switch many orders to another service at once, none failing, counters exact (D-53, D-44)', async () => {
    // On PostgreSQL each switch points its order at the new step (a foreign-key check: a key-share
    // lock on that step's row) and then locks both counter rows: FOR UPDATE there deadlocked.
    await createService(t, 'Switch From', [{ description: 'Here', button_title: 'Go' }])
    await createService(t, 'Switch To', [{ description: 'There', button_title: 'Go' }])
    const orders = await Promise.all(Array.from({ length: 12 }, () => createOrder(t, f.owner.id, 'Switch From')))
    const deadlocks = async () =>
      t.dialect === 'postgres'
        ? Number(
            (
              await sql<{ n: string }>`select deadlocks as n from pg_stat_database where datname = current_database()`.execute(
                t.database.db
              )
            ).rows[0]!.n
          )
        : 0
    const before = await deadlocks()
    const responses = await Promise.all(orders.map((o) => update({ transaction_id: o.transaction_id, service_name: 'Switch To' })))
    for (const response of responses) assert.equal(ok(response).service_name, 'Switch To')
    assert.equal(await deadlocks(), before, 'no transaction was chosen as a deadlock victim')
    const stats = ok(await t.post('/v1/service/stats'))
    const countsOf = (name: string) =>
      stats.service_stats
        .find((s: { service: Array<Record<string, unknown>> }) => s.service[0]!.service_name === name)
        .service.map((step: Record<string, unknown>) => step.position_count)
    assert.deepEqual([countsOf('Switch From'), countsOf('Switch To')], [[0], [12]])
  })

  it('should check delivery against the stored pickup when only one time is sent', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    problem(await update({ transaction_id: o.transaction_id, delivery_timestamp: PICKUP - 60 }), 'validation_failed', [
      '/delivery_timestamp'
    ])
    problem(await update({ transaction_id: o.transaction_id, pickup_timestamp: DELIVERY + 60 }), 'validation_failed', [
      '/delivery_timestamp'
    ])
    ok(await update({ transaction_id: o.transaction_id, pickup_timestamp: DELIVERY + 60, delivery_timestamp: DELIVERY + 120 }))
  })

  it('should reject bad input and unknown ids, changing nothing', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning', { notes: 'same' })
    const before = ok(await t.post(`/v1/transaction/${o.transaction_id}`))
    const history = await countRows(t, 'order_history')
    problem(await update({ note: 'x' }), 'validation_failed', ['/transaction_id'])
    problem(await update({ transaction_id: o.transaction_id, status: 'done' }), 'validation_failed', ['/status'])
    problem(await update({ transaction_id: o.transaction_id, status: 'OPEN' }), 'validation_failed', ['/status'])
    problem(await update({ transaction_id: o.transaction_id, note: 12 }), 'validation_failed', ['/note'])
    problem(await update({ transaction_id: o.transaction_id, note: 'x'.repeat(1001) }), 'validation_failed', ['/note'])
    problem(await update({ transaction_id: o.transaction_id, pickup_timestamp: 'soon' }), 'validation_failed', ['/pickup_timestamp'])
    problem(await update({ transaction_id: o.transaction_id, delivery_timestamp: 5_000_000_000 }), 'validation_failed', [
      '/delivery_timestamp'
    ])
    problem(await update({ transaction_id: o.transaction_id, service_name: 'Nope', note: 'changed' }), 'service_not_found')
    problem(await update({ transaction_id: 'trx_missing', note: 'x' }), 'transaction_not_found')
    assert.deepEqual(ok(await t.post(`/v1/transaction/${o.transaction_id}`)), before)
    assert.equal(await countRows(t, 'order_history'), history)
  })

  it('should let a customer change note and times of their own open transaction, and nothing else', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    const updated = ok(await update({ transaction_id: o.transaction_id, note: 'by me', delivery_timestamp: DELIVERY + 60 }, f.owner.auth))
    assert.deepEqual([updated.note, updated.delivery_time], ['by me', '07:16'])
    problem(await update({ transaction_id: o.transaction_id, status: 'closed' }, f.owner.auth), 'forbidden')
    problem(await update({ transaction_id: o.transaction_id, service_name: 'Home Cleaning' }, f.owner.auth), 'forbidden')
    problem(await update({ transaction_id: o.transaction_id, note: 'theirs' }, f.other.auth), 'transaction_not_found')
    problem(await update({ transaction_id: o.transaction_id, note: 'app' }, t.auth.app), 'forbidden')
    ok(await update({ transaction_id: o.transaction_id, status: 'closed' }))
    problem(await update({ transaction_id: o.transaction_id, note: 'too late' }, f.owner.auth), 'transaction_closed')
    assert.equal(ok(await t.post(`/v1/transaction/${o.transaction_id}`)).note, 'by me')
  })
})
