import assert from 'node:assert/strict'
import { it } from 'node:test'
import { describeEachDialect } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { createCustomer, createOrder, createService } from '../../helpers/factories.js'
import { descriptionsOf, readStats, storedPositions } from './support.js'

const REMOVED = { message: 'successfully removed' }

describeEachDialect('remove step (spec Remove step, D-42)', (t) => {
  it('should remove by position_number and move later steps down by one', async () => {
    await createService(t, 'Wash & Fold', [{ description: 'A' }, { description: 'B' }, { description: 'C' }, { description: 'D' }])
    assert.deepEqual(ok(await t.post('/v1/service/remove', { service_name: 'Wash & Fold', position_number: '2' })), REMOVED)
    assert.deepEqual(await descriptionsOf(t, 'Wash & Fold'), ['A', 'C', 'D'])
    assert.deepEqual(await storedPositions(t, 'Wash & Fold'), { positions: [1, 2, 3], stepCount: 3 })
    assert.deepEqual(ok(await t.post('/v1/service/remove', { service_name: 'wash & fold', position_number: 3 })), REMOVED)
    assert.deepEqual(await descriptionsOf(t, 'Wash & Fold'), ['A', 'C'])
  })

  it('should remove by position, as the spec example sends it', async () => {
    await createService(t, 'Dry Cleaning', [{ description: 'A' }, { description: 'B' }, { description: 'C' }])
    assert.deepEqual(ok(await t.post('/v1/service/remove', { service_name: 'Dry Cleaning', position: '1' })), REMOVED)
    assert.deepEqual(await descriptionsOf(t, 'Dry Cleaning'), ['B', 'C'])
  })

  it('should remove when position_number and position are both sent and equal; description is ignored', async () => {
    await createService(t, 'Ironing', [{ description: 'A' }, { description: 'B' }, { description: 'C' }])
    assert.deepEqual(
      ok(await t.post('/v1/service/remove', { service_name: 'Ironing', position_number: '3', position: 3, description: 'whatever' })),
      REMOVED
    )
    assert.deepEqual(await descriptionsOf(t, 'Ironing'), ['A', 'B'])
  })

  it('should answer 400 when position_number and position differ, or neither is sent, changing nothing', async () => {
    await createService(t, 'Alterations', [{ description: 'A' }, { description: 'B' }])
    const before = await readStats(t)
    problem(await t.post('/v1/service/remove', { service_name: 'Alterations', position_number: '1', position: '2' }), 'validation_failed', [
      '/position'
    ])
    problem(await t.post('/v1/service/remove', { service_name: 'Alterations' }), 'validation_failed', ['/position_number'])
    problem(await t.post('/v1/service/remove', { service_name: 'Alterations', description: 'A' }), 'validation_failed', [
      '/position_number'
    ])
    assert.deepEqual(await readStats(t), before)
  })

  it('should answer 400 for positions that are not whole numbers from 1 and 404 step_not_found past the last step', async () => {
    await createService(t, 'Shoe Repair', [{ description: 'A' }, { description: 'B' }])
    const before = await readStats(t)
    for (const position_number of [0, '0', -1, 1.5, '1.5', 'one', '', '2 ']) {
      problem(await t.post('/v1/service/remove', { service_name: 'Shoe Repair', position_number }), 'validation_failed', [
        '/position_number'
      ])
    }
    for (const position of [0, '-2', 2.5, 'x']) {
      problem(await t.post('/v1/service/remove', { service_name: 'Shoe Repair', position }), 'validation_failed', ['/position'])
    }
    const missing = problem(await t.post('/v1/service/remove', { service_name: 'Shoe Repair', position_number: '3' }), 'step_not_found')
    assert.equal(missing.detail, 'This service has no such step; its steps are numbered 1 to 2.')
    problem(await t.post('/v1/service/remove', { service_name: 'Shoe Repair', position: 10_000 }), 'step_not_found')
    assert.deepEqual(await readStats(t), before)
  })

  it('should answer 404 service_not_found for an unknown service', async () => {
    problem(await t.post('/v1/service/remove', { service_name: 'Nothing Here', position_number: '1' }), 'service_not_found')
  })

  it('should answer 409 last_step for the only step', async () => {
    await createService(t, 'Single Step', [{ description: 'Only' }])
    const body = problem(await t.post('/v1/service/remove', { service_name: 'Single Step', position_number: '1' }), 'last_step')
    assert.equal(body.detail, 'The only step of a service cannot be removed.')
    assert.deepEqual(await descriptionsOf(t, 'Single Step'), ['Only'])
  })

  it('should answer 409 step_in_use for a step an order is at, open or closed, changing nothing', async () => {
    await createService(t, 'Home Cleaning', [{ description: 'Booked' }, { description: 'Cleaning' }, { description: 'Done' }])
    const customer = await createCustomer(t)
    const order = await createOrder(t, customer.id, 'Home Cleaning')
    const before = await readStats(t)
    const body = problem(await t.post('/v1/service/remove', { service_name: 'Home Cleaning', position_number: '1' }), 'step_in_use')
    assert.equal(body.detail, 'Transactions are at this step; move them on before removing it.')
    assert.deepEqual(await readStats(t), before)
    // Closed, it is still at its step (D-44 counts it), so the step stays in use.
    ok(await t.post('/v1/transaction/update', { transaction_id: order.transaction_id, status: 'closed' }))
    problem(await t.post('/v1/service/remove', { service_name: 'Home Cleaning', position: '1' }), 'step_in_use')
    assert.deepEqual(await descriptionsOf(t, 'Home Cleaning'), ['Booked', 'Cleaning', 'Done'])
    // Other steps may go.
    assert.deepEqual(ok(await t.post('/v1/service/remove', { service_name: 'Home Cleaning', position_number: '2' })), REMOVED)
    assert.deepEqual(await descriptionsOf(t, 'Home Cleaning'), ['Booked', 'Done'])
  })

  it('should allow removing a step once its orders moved on', async () => {
    await createService(t, 'Rug Cleaning', [{ description: 'Collected' }, { description: 'Washed' }, { description: 'Returned' }])
    const customer = await createCustomer(t)
    const order = await createOrder(t, customer.id, 'Rug Cleaning')
    problem(await t.post('/v1/service/remove', { service_name: 'Rug Cleaning', position_number: '1' }), 'step_in_use')
    ok(await t.post('/v1/transaction/move', { customer_id: customer.id, transaction_id: order.transaction_id }))
    assert.deepEqual(ok(await t.post('/v1/service/remove', { service_name: 'Rug Cleaning', position_number: '1' })), REMOVED)
    const view = ok(await t.post(`/v1/transaction/${order.transaction_id}`))
    assert.deepEqual(view.service.position, { position_number: '1', position_description: 'Washed', button_title: '', events: [] })
    assert.deepEqual(view.service.progress_bar, { total_steps: 2, percentage: 50 })
  })

  it('should keep an order at a later step on its own step after a removal before it (D-42)', async () => {
    await createService(t, 'Curtain Care', [
      { description: 'Collected' },
      { description: 'Inspected' },
      { description: 'Steamed', button_title: 'Mark steamed', events: ['email', 'trak'] },
      { description: 'Hung' }
    ])
    const customer = await createCustomer(t)
    const order = await createOrder(t, customer.id, 'Curtain Care')
    for (let i = 0; i < 2; i++) ok(await t.post('/v1/transaction/move', { customer_id: customer.id, transaction_id: order.transaction_id }))
    const before = ok(await t.post(`/v1/transaction/${order.transaction_id}`))
    assert.equal(before.service.position.position_number, '3')
    assert.deepEqual(ok(await t.post('/v1/service/remove', { service_name: 'Curtain Care', position_number: '2' })), REMOVED)
    const after = ok(await t.post(`/v1/transaction/${order.transaction_id}`))
    assert.deepEqual(after.service, {
      service_id: before.service.service_id,
      service_name: 'Curtain Care',
      position: {
        position_number: '2',
        position_description: 'Steamed',
        button_title: 'Mark steamed',
        events: [{ event: 'email' }, { event: 'trak' }]
      },
      progress_bar: { total_steps: 3, percentage: 66.66666666666666 }
    })
    // The next move goes to the step that followed it before the removal.
    const moved = ok(await t.post('/v1/transaction/move', { customer_id: customer.id, transaction_id: order.transaction_id }))
    assert.equal(moved.service.position.position_description, 'Hung')
    assert.equal(moved.service.position.position_number, '3')
  })

  it('should allow staff and admin keys only: app key and customer 403, no credentials 401', async () => {
    await createService(t, 'Guarded Removal', [{ description: 'A' }, { description: 'B' }, { description: 'C' }])
    const customer = await createCustomer(t, { password: 'correct horse battery' })
    const body = { service_name: 'Guarded Removal', position_number: '2' }
    problem(await t.post('/v1/service/remove', body, { auth: t.auth.app }), 'forbidden')
    problem(await t.post('/v1/service/remove', body, { auth: customer.auth }), 'forbidden')
    problem(await t.post('/v1/service/remove', body, { auth: null }), 'unauthenticated')
    assert.deepEqual(await descriptionsOf(t, 'Guarded Removal'), ['A', 'B', 'C'])
    assert.deepEqual(ok(await t.post('/v1/service/remove', body, { auth: t.auth.admin })), REMOVED)
  })

  it('should remove one step for a repeated Idempotency-Key', async () => {
    await createService(t, 'Keyed Removal', [{ description: 'A' }, { description: 'B' }, { description: 'C' }])
    const headers = { 'idempotency-key': 'remove-keyed-step' }
    const body = { service_name: 'Keyed Removal', position_number: '1' }
    assert.deepEqual(ok(await t.post('/v1/service/remove', body, { headers })), REMOVED)
    assert.deepEqual(ok(await t.post('/v1/service/remove', body, { headers })), REMOVED)
    assert.deepEqual(await descriptionsOf(t, 'Keyed Removal'), ['B', 'C'])
  })
})
