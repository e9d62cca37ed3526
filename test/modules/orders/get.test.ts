import assert from 'node:assert/strict'
import { before, it } from 'node:test'
import { describeEachDialect } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { createOrder } from '../../helpers/factories.js'
import { orderFixture } from './support.js'

describeEachDialect('get transaction: the full view', (t) => {
  let f: Awaited<ReturnType<typeof orderFixture>>
  let order: { transaction_id: string; transaction_code: number }
  let serviceId: string
  before(async () => {
    f = await orderFixture(t)
    order = await createOrder(t, f.owner.id, 'Dry Cleaning', { notes: 'Leave at the door' })
    serviceId = ok(await t.post('/v1/service/dry%20cleaning/1')).service_id
  })

  it('should answer every field of the full view with the single null line of an empty receipt', async () => {
    const view = ok(await t.post(`/v1/transaction/${order.transaction_id}`))
    assert.deepEqual(view, {
      transaction_id: order.transaction_id,
      transaction_code: String(order.transaction_code),
      customer_id: f.owner.id,
      pickup_date_time: 'Oct 30, 2026 @ 07:15 AM',
      pickup_date: '2026-10-30',
      pickup_time: '07:15:00',
      delivery_date_time: 'Oct 31, 2026 @ 07:15 AM',
      delivery_date: '2026-10-31',
      delivery_time: '07:15:00',
      note: 'Leave at the door',
      service: {
        service_id: serviceId,
        service_name: 'Dry Cleaning',
        position: { position_number: '1', position_description: 'Picked up', button_title: 'Pick up', events: [{ event: 'email' }] },
        progress_bar: { total_steps: 3, percentage: 33.33333333333333 }
      },
      status: 'open',
      receipt: [{ receipt_id: null, item_id: null, title: null, image_url: null, price: '0.00', quantity: null }],
      total: '0.00'
    })
  })

  it('should show receipt lines in the order first added, prices in major units with two decimals', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    ok(await t.post('/v1/receipt/add', { transaction_id: o.transaction_id, item_id: f.suit, quantity: 3 }))
    ok(await t.post('/v1/receipt/add', { transaction_id: o.transaction_id, item_id: f.shirt }))
    const view = ok(await t.post(`/v1/transaction/${o.transaction_id}`))
    const lines = view.receipt as Array<Record<string, string>>
    assert.deepEqual(lines, [
      { receipt_id: lines[0]!.receipt_id, item_id: f.suit, title: 'Suit', image_url: 'suit.png', price: '59.97', quantity: '3' },
      { receipt_id: lines[1]!.receipt_id, item_id: f.shirt, title: 'Shirt', image_url: 'shirt.png', price: '2.50', quantity: '1' }
    ])
    assert.match(lines[0]!.receipt_id!, /^[0-9]+$/)
    assert.ok(Number(lines[0]!.receipt_id) < Number(lines[1]!.receipt_id))
    assert.equal(view.total, '62.47')
  })

  it('should let the owner read it with customer credentials', async () => {
    const view = ok(await t.post(`/v1/transaction/${order.transaction_id}`, undefined, { auth: f.owner.auth }))
    assert.equal(view.transaction_id, order.transaction_id)
  })

  it('should answer 404 to another customer exactly as for an id that does not exist', async () => {
    const foreign = problem(
      await t.post(`/v1/transaction/${order.transaction_id}`, undefined, { auth: f.other.auth }),
      'transaction_not_found'
    )
    const missing = problem(await t.post('/v1/transaction/trx_doesnotexist', undefined, { auth: f.other.auth }), 'transaction_not_found')
    assert.deepEqual(foreign, missing)
  })

  it('should refuse app keys (403) and missing credentials (401)', async () => {
    problem(await t.post(`/v1/transaction/${order.transaction_id}`, undefined, { auth: t.auth.app }), 'forbidden')
    problem(await t.post(`/v1/transaction/${order.transaction_id}`, undefined, { auth: null }), 'unauthenticated')
  })

  it('should ignore any body and content type it is sent (D-23)', async () => {
    const view = ok(
      await t.post(`/v1/transaction/${order.transaction_id}`, undefined, { raw: 'not json at all', contentType: 'text/plain' })
    )
    assert.equal(view.transaction_id, order.transaction_id)
  })

  it('should build the full view in one query however many receipt lines it has (no N+1)', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    const empty = await t.countQueries(() => t.post(`/v1/transaction/${o.transaction_id}`))
    for (const item of [f.shirt, f.suit]) ok(await t.post('/v1/receipt/add', { transaction_id: o.transaction_id, item_id: item }))
    const full = await t.countQueries(() => t.post(`/v1/transaction/${o.transaction_id}`))
    // One query authenticates the key, one reads the whole view.
    assert.equal(empty.queries.length, 2)
    assert.equal(full.queries.length, 2)
    assert.match(full.queries[1]!, /from "orders"/)
  })

  it('should keep showing the step after another step is inserted before it', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    ok(await t.post('/v1/transaction/move', { customer_id: f.owner.id, transaction_id: o.transaction_id }))
    ok(await t.post('/v1/service/add', { service_name: 'Dry Cleaning', description: 'Inspected', position_number: 1 }))
    const view = ok(await t.post(`/v1/transaction/${o.transaction_id}`))
    assert.deepEqual(view.service.position, {
      position_number: '3',
      position_description: 'Cleaning',
      button_title: 'Start cleaning',
      events: [{ event: 'text' }, { event: 'trak' }]
    })
    assert.deepEqual(view.service.progress_bar, { total_steps: 4, percentage: 75 })
    ok(await t.post('/v1/service/remove', { service_name: 'Dry Cleaning', position_number: 1 }))
  })
})

describeEachDialect(
  'full view in TIME_ZONE America/New_York across the end of daylight saving time (D-51)',
  (t) => {
    let f: Awaited<ReturnType<typeof orderFixture>>
    before(async () => {
      f = await orderFixture(t)
    })

    it('should write 01:30 EDT and 01:30 EST on 1 November 2026 as the same wall-clock time', async () => {
      // New York leaves daylight saving time at 06:00 UTC on 1 November 2026.
      const edt = Date.UTC(2026, 10, 1, 5, 30) / 1000
      const est = Date.UTC(2026, 10, 1, 6, 30) / 1000
      const o = await createOrder(t, f.owner.id, 'Dry Cleaning', { pickup: edt, delivery: est })
      const view = ok(await t.post(`/v1/transaction/${o.transaction_id}`))
      assert.deepEqual(
        [view.pickup_date_time, view.pickup_date, view.pickup_time, view.delivery_date_time, view.delivery_date, view.delivery_time],
        ['Nov 01, 2026 @ 01:30 AM', '2026-11-01', '01:30:00', 'Nov 01, 2026 @ 01:30 AM', '2026-11-01', '01:30:00']
      )
    })

    it('should write noon, midnight and the hours around them in 12-hour form', async () => {
      // 16:00 UTC is 12:00 PM EDT on 30 October; 04:05 UTC on 31 October is 12:05 AM EDT.
      const noon = Date.UTC(2026, 9, 30, 16, 0) / 1000
      const midnight = Date.UTC(2026, 9, 31, 4, 5) / 1000
      const o = await createOrder(t, f.owner.id, 'Dry Cleaning', { pickup: noon, delivery: midnight })
      const view = ok(await t.post(`/v1/transaction/${o.transaction_id}`))
      assert.equal(view.pickup_date_time, 'Oct 30, 2026 @ 12:00 PM')
      assert.equal(view.pickup_time, '12:00:00')
      assert.equal(view.delivery_date_time, 'Oct 31, 2026 @ 12:05 AM')
      assert.equal(view.delivery_time, '00:05:00')
    })

    it('should use the same zone in the create, update and full views', async () => {
      const pickup = Date.UTC(2026, 2, 8, 6, 59) / 1000 // 01:59 EST, a minute before New York skips to 03:00
      const created = ok(
        await t.post('/v1/transaction/create', {
          customer_id: f.owner.id,
          service_name: 'Dry Cleaning',
          pickup_timestamp: pickup,
          delivery_timestamp: pickup + 60
        })
      )
      assert.deepEqual([created.pickup_date, created.pickup_time, created.delivery_time], ['2026-03-08', '01:59', '03:00'])
      const updated = ok(
        await t.post('/v1/transaction/update', { transaction_id: created.transaction_id, delivery_timestamp: pickup + 120 })
      )
      assert.deepEqual([updated.pickup_time, updated.delivery_time], ['01:59', '03:01'])
      const view = ok(await t.post(`/v1/transaction/${created.transaction_id}`))
      assert.deepEqual([view.pickup_time, view.delivery_time, view.delivery_date_time], ['01:59:00', '03:01:00', 'Mar 08, 2026 @ 03:01 AM'])
    })
  },
  { TIME_ZONE: 'America/New_York' }
)
