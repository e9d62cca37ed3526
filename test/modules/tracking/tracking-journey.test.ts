import assert from 'node:assert/strict'
import { afterEach, before, it } from 'node:test'
import { describeEachDialect } from '../../helpers/app.js'
import { ok } from '../../helpers/assertions.js'
import { createCustomer, createItem, createOrder, createService } from '../../helpers/factories.js'
import { Dispatchers } from '../notifications/support/dispatchers.js'

const PICKUP = 1_793_344_500
const DELIVERY = 1_793_430_900

interface Entry {
  at: string
  type: string
  position_number: string
  description: string
}

describeEachDialect('the tracking page shows the customer their journey only (issue 9, D-56)', (t) => {
  const dispatchers = new Dispatchers(t)
  let customerId = ''
  let item = ''
  const update = async (body: Record<string, unknown>) => ok(await t.post('/v1/transaction/update', body))
  const move = async (transactionId: string) =>
    ok(await t.post('/v1/transaction/move', { customer_id: customerId, transaction_id: transactionId }))
  const history = async (transactionId: string): Promise<Entry[]> => ok(await t.post(`/v1/transaction/${transactionId}/history`)).history
  /** The public read, and the entries it answers as [type, position, description]. */
  async function journey(transactionId: string): Promise<{ body: string; entries: Entry[] }> {
    const link = ok(await t.post(`/v1/transaction/${transactionId}/tracking`)).tracking_url as string
    const response = await t.post(`/track/${link.split('/track/')[1]}/status`, undefined, { auth: null })
    return { body: response.body, entries: ok(response).history }
  }
  const shape = (entries: Entry[]) => entries.map((e) => [e.type, e.position_number, e.description])
  /** Runs the dispatcher until the outbox is empty: `trak` events write their `tracked` entries. */
  async function dispatch(): Promise<void> {
    const dispatcher = dispatchers.create()
    while ((await dispatcher.runOnce()) > 0) {}
  }

  before(async () => {
    customerId = (await createCustomer(t, { firstName: 'Jane', lastName: 'Journey' })).id
    await createService(t, 'Journey Wash', [
      { description: 'Received', events: ['trak'] },
      { description: 'Washing', events: ['trak'] },
      { description: 'Ready', events: ['trak'] }
    ])
    // A step whose text starts like a note edit's is still a step: only the exact edit texts are left out.
    await createService(t, 'Journey Garage', [{ description: 'Changed oil and filter' }, { description: 'Pressed' }])
    item = await createItem(t, 'Journey Wash', 'Shirt', 250)
  })
  afterEach(() => dispatchers.stopAll())

  it('should show placed, each step reached, closed and reopened, and nothing the shop did inside', async () => {
    const order = (await createOrder(t, customerId, 'Journey Wash', { pickup: PICKUP, delivery: DELIVERY, notes: 'Ring twice' }))
      .transaction_id
    ok(await t.post('/v1/receipt/add', { transaction_id: order, item_id: item }))
    ok(await t.post('/v1/receipt/add', { transaction_id: order, item_id: item }))
    ok(await t.post('/v1/receipt/remove', { transaction_id: order, item_id: item }))
    await update({ transaction_id: order, note: 'Ring three times' })
    await update({ transaction_id: order, pickup_timestamp: PICKUP + 60, delivery_timestamp: DELIVERY + 60 })
    await move(order)
    await dispatch()
    // A change of service with a note edit in the same call: the step it put the order at shows, the edit does not.
    await update({ transaction_id: order, service_name: 'Journey Garage', note: 'Oil too' })
    await move(order)
    await move(order)
    await update({ transaction_id: order, status: 'open' })
    await update({ transaction_id: order, status: 'closed', note: 'Done' })

    // The shop's own history has it all.
    const internal = (await history(order)).map((e) => e.type)
    for (const type of ['receipt_added', 'receipt_removed', 'tracked']) assert.ok(internal.includes(type), type)
    assert.equal(internal.filter((type) => type === 'updated').length, 5)

    const { body, entries } = await journey(order)
    assert.deepEqual(shape(entries), [
      ['created', '1', 'Received'],
      ['moved', '2', 'Washing'],
      ['updated', '1', 'Changed oil and filter'],
      ['moved', '2', 'Pressed'],
      ['closed', '2', 'Pressed'],
      ['reopened', '2', 'Pressed'],
      ['closed', '2', 'Pressed']
    ])
    for (const entry of entries) assert.deepEqual(Object.keys(entry), ['at', 'type', 'position_number', 'description'])
    const times = entries.map((e) => e.at)
    assert.deepEqual([...times].sort(), times)
    // Nothing internal goes over the wire.
    for (const secret of ['tracked', 'receipt', 'Changed note', 'Changed pickup', 'Ring', 'Oil too', 'Done', 'Shirt', 'staff']) {
      assert.ok(!body.includes(secret), `the status names ${secret}: ${body}`)
    }
  })

  it('should show a new order as placed only, however much the shop edits it', async () => {
    const order = (await createOrder(t, customerId, 'Journey Wash', { pickup: PICKUP, delivery: DELIVERY })).transaction_id
    await dispatch()
    for (const note of ['a', 'b']) await update({ transaction_id: order, note })
    await update({ transaction_id: order, delivery_timestamp: DELIVERY + 3600 })
    ok(await t.post('/v1/receipt/add', { transaction_id: order, item_id: item }))
    assert.ok((await history(order)).some((e) => e.type === 'tracked'))
    assert.deepEqual(shape((await journey(order)).entries), [['created', '1', 'Received']])
  })

  it('should show the last step reached, then completed, when the order is moved to the end', async () => {
    const order = (await createOrder(t, customerId, 'Journey Wash', { pickup: PICKUP, delivery: DELIVERY })).transaction_id
    for (let i = 0; i < 3; i++) await move(order)
    await dispatch()
    assert.deepEqual(shape((await journey(order)).entries), [
      ['created', '1', 'Received'],
      ['moved', '2', 'Washing'],
      ['moved', '3', 'Ready'],
      ['closed', '3', 'Ready']
    ])
  })
})
