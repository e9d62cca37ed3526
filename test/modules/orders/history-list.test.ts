import assert from 'node:assert/strict'
import { before, it } from 'node:test'
import { ApiKeysService } from '../../../src/modules/api-keys/api-keys.service.js'
import { basic, describeEachDialect } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { createOrder, createService } from '../../helpers/factories.js'
import { DELIVERY, orderFixture, PICKUP } from './support.js'

describeEachDialect('transaction history (D-56)', (t) => {
  let f: Awaited<ReturnType<typeof orderFixture>>
  before(async () => {
    f = await orderFixture(t)
  })

  it('should list what happened oldest first with ISO-8601 UTC times, actors and who did it', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    ok(await t.post('/v1/transaction/update', { transaction_id: o.transaction_id, note: 'n' }, { auth: f.owner.auth }))
    ok(await t.post('/v1/transaction/move', { customer_id: f.owner.id, transaction_id: o.transaction_id }, { auth: t.auth.admin }))
    const history = ok(await t.post(`/v1/transaction/${o.transaction_id}/history`, undefined, { auth: f.owner.auth }))
    assert.equal(history.transaction_id, o.transaction_id)
    assert.deepEqual(
      history.history.map((h: Record<string, string>) => ({ ...h, at: 'AT' })),
      [
        { at: 'AT', type: 'created', position_number: '1', description: 'Picked up', actor: 'staff', by: 'test staff' },
        { at: 'AT', type: 'updated', position_number: '1', description: 'Changed note', actor: 'customer', by: '' },
        { at: 'AT', type: 'moved', position_number: '2', description: 'Cleaning', actor: 'admin', by: 'test admin' }
      ]
    )
    for (const entry of history.history) assert.match(entry.at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
  })

  it('should name who did each change: an API key by its name, "" for the customer (D-17)', async () => {
    const keys = new ApiKeysService(t.database, t.clock)
    const keyNamed = async (role: 'admin' | 'staff', name: string) => {
      const key = await keys.create(role, name)
      return basic(key.id, key.secret)
    }
    const ada = 'Ada at the counter'
    const sam = 'Sam, the "van" driver'
    const admin = await keyNamed('admin', ada)
    const staff = await keyNamed('staff', sam)
    const customer = f.owner.auth
    // Step 1 without events, then with one: a step entry with and without messages (one statement or several).
    await createService(t, 'Pressing', [{ description: 'Queued', events: [] }])
    await createService(t, 'Ironing', [{ description: 'Waiting', events: ['email'] }])
    const body = { customer_id: f.owner.id, service_name: 'Dry Cleaning', pickup_timestamp: PICKUP, delivery_timestamp: DELIVERY }
    const id: string = ok(await t.post('/v1/transaction/create', body, { auth: staff })).transaction_id
    const move = async (auth: string) => ok(await t.post('/v1/transaction/move', { customer_id: f.owner.id, transaction_id: id }, { auth }))
    const receipt = async (op: 'add' | 'remove', item: string, auth: string) =>
      ok(await t.post(`/v1/receipt/${op}`, { transaction_id: id, item_id: item }, { auth }))
    const update = async (change: Record<string, string>, auth: string) =>
      ok(await t.post('/v1/transaction/update', { transaction_id: id, ...change }, { auth }))
    await move(admin)
    await receipt('add', f.shirt, staff)
    await receipt('remove', f.shirt, admin)
    await receipt('add', f.suit, customer)
    await receipt('remove', f.suit, customer)
    await update({ note: 'by the customer' }, customer)
    await update({ note: 'by the admin', status: 'closed' }, admin)
    await update({ status: 'open' }, staff)
    await update({ service_name: 'Pressing' }, admin)
    await update({ service_name: 'Ironing' }, staff)
    await move(admin)
    const history = ok(await t.post(`/v1/transaction/${id}/history`, undefined, { auth: customer }))
    assert.deepEqual(
      history.history.map((h: Record<string, string>) => [h.type, h.position_number, h.description, h.actor, h.by]),
      [
        ['created', '1', 'Picked up', 'staff', sam],
        ['moved', '2', 'Cleaning', 'admin', ada],
        ['receipt_added', '2', 'Added 1 × Shirt', 'staff', sam],
        ['receipt_removed', '2', 'Removed 1 × Shirt', 'admin', ada],
        ['receipt_added', '2', 'Added 1 × Suit', 'customer', ''],
        ['receipt_removed', '2', 'Removed 1 × Suit', 'customer', ''],
        ['updated', '2', 'Changed note', 'customer', ''],
        ['updated', '2', 'Changed note', 'admin', ada],
        ['closed', '2', 'Cleaning', 'admin', ada],
        ['reopened', '2', 'Cleaning', 'staff', sam],
        ['updated', '1', 'Queued', 'admin', ada],
        ['updated', '1', 'Waiting', 'staff', sam],
        ['closed', '1', 'Waiting', 'admin', ada]
      ]
    )
  })

  it("should answer 404 for another customer's transaction and for a missing one; 403 for app keys", async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    problem(await t.post(`/v1/transaction/${o.transaction_id}/history`, undefined, { auth: f.other.auth }), 'transaction_not_found')
    problem(await t.post('/v1/transaction/trx_missing/history'), 'transaction_not_found')
    problem(await t.post(`/v1/transaction/${o.transaction_id}/history`, undefined, { auth: t.auth.app }), 'forbidden')
  })
})

describeEachDialect('list transactions (D-57)', (t) => {
  let f: Awaited<ReturnType<typeof orderFixture>>
  const owned: string[] = []
  const others: string[] = []
  before(async () => {
    f = await orderFixture(t)
    await createService(t, 'Home Cleaning', [{ description: 'Booked' }, { description: 'Done' }])
    for (let i = 0; i < 5; i++)
      owned.push((await createOrder(t, f.owner.id, i % 2 === 0 ? 'Dry Cleaning' : 'Home Cleaning')).transaction_id)
    for (let i = 0; i < 3; i++) others.push((await createOrder(t, f.other.id, 'Dry Cleaning')).transaction_id)
    ok(await t.post('/v1/transaction/move', { customer_id: f.owner.id, transaction_id: owned[0] }))
    ok(await t.post('/v1/transaction/update', { transaction_id: owned[4], status: 'closed' }))
  })

  const ids = (body: { transactions: Array<{ transaction_id: string }> }) => body.transactions.map((v) => v.transaction_id)

  it('should list full views newest first for staff, 20 by default', async () => {
    const body = ok(await t.post('/v1/transaction/list', {}))
    assert.deepEqual(ids(body), [...owned, ...others].reverse())
    assert.equal(body.next_cursor, null)
    assert.deepEqual(body.transactions[0], ok(await t.post(`/v1/transaction/${others[2]}`)))
  })

  it('should read a request with no body as no filters, and still refuse a body that is not an object', async () => {
    const bodyless = await t.post('/v1/transaction/list')
    assert.equal(bodyless.headers['content-type'], 'application/json; charset=utf-8')
    assert.deepEqual(bodyless.json(), ok(await t.post('/v1/transaction/list', {})))
    problem(await t.post('/v1/transaction/list', null), 'validation_failed', [''])
    problem(await t.post('/v1/transaction/list', []), 'validation_failed', [''])
  })

  it('should page with limit and next_cursor until null, without gaps or repeats', async () => {
    const seen: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const body: { transactions: Array<{ transaction_id: string }>; next_cursor: string | null } = ok(
        await t.post('/v1/transaction/list', { limit: 3, ...(cursor === null ? {} : { cursor }) })
      )
      seen.push(...ids(body))
      cursor = body.next_cursor
      pages++
    } while (cursor !== null)
    assert.equal(pages, 3)
    assert.deepEqual(seen, [...owned, ...others].reverse())
  })

  it('should filter by customer, service, position and status', async () => {
    assert.deepEqual(ids(ok(await t.post('/v1/transaction/list', { customer_id: f.other.id }))), [...others].reverse())
    assert.deepEqual(ids(ok(await t.post('/v1/transaction/list', { service_name: 'home cleaning' }))), [owned[3], owned[1]])
    assert.deepEqual(ids(ok(await t.post('/v1/transaction/list', { service_name: 'Dry Cleaning', position_number: '2' }))), [owned[0]])
    assert.deepEqual(ids(ok(await t.post('/v1/transaction/list', { status: 'closed' }))), [owned[4]])
    assert.deepEqual(ids(ok(await t.post('/v1/transaction/list', { customer_id: f.owner.id, status: 'open', limit: 2 }))), [
      owned[3],
      owned[2]
    ])
    assert.deepEqual(ok(await t.post('/v1/transaction/list', { service_name: 'Nothing' })), { transactions: [], next_cursor: null })
  })

  it('should show a customer only their own, and nothing for a filter on another customer', async () => {
    assert.deepEqual(ids(ok(await t.post('/v1/transaction/list', {}, { auth: f.owner.auth }))), [...owned].reverse())
    assert.deepEqual(ok(await t.post('/v1/transaction/list', { customer_id: f.other.id }, { auth: f.owner.auth })), {
      transactions: [],
      next_cursor: null
    })
    problem(await t.post('/v1/transaction/list', {}, { auth: t.auth.app }), 'forbidden')
  })

  it('should reject bad limits, cursors and filters', async () => {
    problem(await t.post('/v1/transaction/list', { limit: 0 }), 'validation_failed', ['/limit'])
    problem(await t.post('/v1/transaction/list', { limit: 101 }), 'validation_failed', ['/limit'])
    problem(await t.post('/v1/transaction/list', { limit: '500' }), 'validation_failed', ['/limit'])
    // Digit text is read by its value, up to 20 digits.
    assert.equal(ok(await t.post('/v1/transaction/list', { limit: '00000000000000001' })).transactions.length, 1)
    problem(await t.post('/v1/transaction/list', { cursor: 'bogus' }), 'validation_failed', ['/cursor'])
    problem(await t.post('/v1/transaction/list', { status: 'pending' }), 'validation_failed', ['/status'])
    problem(await t.post('/v1/transaction/list', { position_number: -1 }), 'validation_failed', ['/position_number'])
  })
})
