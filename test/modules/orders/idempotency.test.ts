import assert from 'node:assert/strict'
import { before, it } from 'node:test'
import { describeEachDialect } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { createOrder } from '../../helpers/factories.js'
import { countRows, DELIVERY, orderFixture, PICKUP } from './support.js'

describeEachDialect('Idempotency-Key on transaction writes (D-52)', (t) => {
  let f: Awaited<ReturnType<typeof orderFixture>>
  before(async () => {
    f = await orderFixture(t)
  })

  const createBody = () => ({
    customer_id: f.owner.id,
    service_name: 'Dry Cleaning',
    pickup_timestamp: PICKUP,
    delivery_timestamp: DELIVERY
  })
  const withKey = (key: string, auth?: string) => ({ headers: { 'idempotency-key': key }, ...(auth === undefined ? {} : { auth }) })

  it('should answer a repeat with the first response and create one transaction', async () => {
    const orders = await countRows(t, 'orders')
    const first = ok(await t.post('/v1/transaction/create', createBody(), withKey('create-1')))
    const repeat = ok(await t.post('/v1/transaction/create', createBody(), withKey('create-1')))
    assert.deepEqual(repeat, first)
    assert.equal(await countRows(t, 'orders'), orders + 1)
  })

  it('should answer 422 for the same key with another body or another path, changing nothing', async () => {
    ok(await t.post('/v1/transaction/create', createBody(), withKey('create-2')))
    const orders = await countRows(t, 'orders')
    problem(await t.post('/v1/transaction/create', { ...createBody(), notes: 'different' }, withKey('create-2')), 'idempotency_key_reused')
    problem(await t.post('/v1/receipt/add', { transaction_id: 'trx_x', item_id: f.shirt }, withKey('create-2')), 'idempotency_key_reused')
    assert.equal(await countRows(t, 'orders'), orders)
  })

  it('should keep keys per credential', async () => {
    const orders = await countRows(t, 'orders')
    const staff = ok(await t.post('/v1/transaction/create', createBody(), withKey('shared-key')))
    const admin = ok(await t.post('/v1/transaction/create', createBody(), withKey('shared-key', t.auth.admin)))
    assert.notEqual(staff.transaction_id, admin.transaction_id)
    assert.equal(await countRows(t, 'orders'), orders + 2)
  })

  it('should run a key again after 24 hours', async () => {
    const first = ok(await t.post('/v1/transaction/create', createBody(), withKey('daily')))
    t.clock.advance(24 * 60 * 60 * 1000 + 1000)
    const later = ok(await t.post('/v1/transaction/create', createBody(), withKey('daily')))
    assert.notEqual(later.transaction_id, first.transaction_id)
  })

  it('should replay a client error as first answered, even after the state changed', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    ok(await t.post('/v1/transaction/update', { transaction_id: o.transaction_id, status: 'closed' }))
    const body = { transaction_id: o.transaction_id, item_id: f.shirt }
    const first = problem(await t.post('/v1/receipt/add', body, withKey('add-closed')), 'transaction_closed')
    ok(await t.post('/v1/transaction/update', { transaction_id: o.transaction_id, status: 'open' }))
    assert.deepEqual(problem(await t.post('/v1/receipt/add', body, withKey('add-closed')), 'transaction_closed'), first)
    ok(await t.post('/v1/receipt/add', body, withKey('add-open')))
  })

  it('should execute once when the same key arrives ten times at once', async () => {
    const orders = await countRows(t, 'orders')
    const responses = await Promise.all(Array.from({ length: 10 }, () => t.post('/v1/transaction/create', createBody(), withKey('burst'))))
    const bodies = responses.map((r) => ok(r))
    for (const body of bodies) assert.deepEqual(body, bodies[0])
    assert.equal(await countRows(t, 'orders'), orders + 1)
  })

  it('should reject a key that is empty, too long or not visible ASCII with 400', async () => {
    problem(await t.post('/v1/transaction/create', createBody(), withKey('')), 'validation_failed', ['/headers/idempotency-key'])
    problem(await t.post('/v1/transaction/create', createBody(), withKey('k'.repeat(256))), 'validation_failed', [
      '/headers/idempotency-key'
    ])
    problem(await t.post('/v1/transaction/create', createBody(), withKey('has space')), 'validation_failed', ['/headers/idempotency-key'])
    ok(await t.post('/v1/transaction/create', createBody(), withKey('k'.repeat(255))))
  })
})
