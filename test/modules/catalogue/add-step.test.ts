import assert from 'node:assert/strict'
import { it } from 'node:test'
import { describeEachDialect } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { createCustomer, createOrder, createService } from '../../helpers/factories.js'
import { descriptionsOf, getStep, readStats, serviceIdOf, storedPositions } from './support.js'

describeEachDialect('add step (spec Add step, D-41, D-42)', (t) => {
  it('should append a step when position_number is left out and answer with its position', async () => {
    await createService(t, 'Wash & Fold', [{ description: 'Received' }])
    assert.deepEqual(ok(await t.post('/v1/service/add', { service_name: 'Wash & Fold', description: 'Washing' })), {
      service_name: 'Wash & Fold',
      description: 'Washing',
      position: '2'
    })
    assert.deepEqual(ok(await t.post('/v1/service/add', { service_name: 'wash & fold', description: 'Folding' })), {
      service_name: 'Wash & Fold',
      description: 'Folding',
      position: '3'
    })
    assert.deepEqual(await descriptionsOf(t, 'Wash & Fold'), ['Received', 'Washing', 'Folding'])
  })

  it('should store button_title and events (strings or {event} objects) on the new step', async () => {
    await createService(t, 'Dry Cleaning', [{ description: 'Received' }])
    ok(
      await t.post('/v1/service/add', {
        service_name: 'Dry Cleaning',
        description: 'Ready for pickup',
        button_title: 'Mark ready',
        events: [{ event: 'email' }, 'text']
      })
    )
    const id = await serviceIdOf(t, 'Dry Cleaning')
    assert.deepEqual(ok(await getStep(t, 'Dry Cleaning', 2)), {
      service_id: id,
      service_name: 'Dry Cleaning',
      position: {
        position_number: '2',
        position_description: 'Ready for pickup',
        button_title: 'Mark ready',
        events: [{ event: 'email' }, { event: 'text' }]
      },
      progress_bar: { total_steps: 2, percentage: 100 }
    })
  })

  it('should insert in the middle and move later steps up by one', async () => {
    await createService(t, 'Tailoring', [{ description: 'A' }, { description: 'B' }, { description: 'C' }])
    assert.deepEqual(ok(await t.post('/v1/service/add', { service_name: 'Tailoring', description: 'X', position_number: '2' })), {
      service_name: 'Tailoring',
      description: 'X',
      position: '2'
    })
    assert.deepEqual(await descriptionsOf(t, 'Tailoring'), ['A', 'X', 'B', 'C'])
    assert.deepEqual(await storedPositions(t, 'Tailoring'), { positions: [1, 2, 3, 4], stepCount: 4 })
  })

  it('should insert at position 1 and at steps+1, as a number or as digit text', async () => {
    await createService(t, 'Carpet Care', [{ description: 'B' }])
    assert.equal(ok(await t.post('/v1/service/add', { service_name: 'Carpet Care', description: 'A', position_number: 1 })).position, '1')
    assert.equal(ok(await t.post('/v1/service/add', { service_name: 'Carpet Care', description: 'C', position_number: '3' })).position, '3')
    assert.equal(ok(await t.post('/v1/service/add', { service_name: 'Carpet Care', description: 'D', position_number: 4 })).position, '4')
    assert.equal(
      ok(await t.post('/v1/service/add', { service_name: 'Carpet Care', description: 'A0', position_number: '1' })).position,
      '1'
    )
    assert.deepEqual(await descriptionsOf(t, 'Carpet Care'), ['A0', 'A', 'B', 'C', 'D'])
  })

  it('should answer 400 naming /position_number for out of range, zero, negative, fraction or non-digit positions, changing nothing', async () => {
    await createService(t, 'Window Washing', [{ description: 'A' }, { description: 'B' }])
    const before = await readStats(t)
    // Whole numbers past the end (however large) are told the service's range; the rest are no position at all.
    for (const position_number of [4, '4', 100, '10001', '99999999999999999999']) {
      const response = await t.post('/v1/service/add', { service_name: 'Window Washing', description: 'X', position_number })
      const body = problem(response, 'validation_failed', ['/position_number'])
      assert.equal(body.errors[0].message, 'must be from 1 to 3 for this service', String(position_number))
    }
    for (const position_number of [0, '0', '00', -1, '-1', 1.5, '1.5', '2.0', 'two', '1a', '', ' 1', true, null]) {
      const response = await t.post('/v1/service/add', { service_name: 'Window Washing', description: 'X', position_number })
      const body = problem(response, 'validation_failed', ['/position_number'])
      assert.ok(!body.errors[0].message.includes('for this service'), String(position_number))
    }
    assert.deepEqual(await readStats(t), before)
    assert.deepEqual(await descriptionsOf(t, 'Window Washing'), ['A', 'B'])
  })

  it('should answer 404 service_not_found for an unknown service', async () => {
    const before = await readStats(t)
    const body = problem(await t.post('/v1/service/add', { service_name: 'Nope', description: 'X' }), 'service_not_found')
    assert.equal(body.detail, 'No service with this name exists.')
    problem(await t.post('/v1/service/add', { service_name: 'Nope', description: 'X', position_number: 1 }), 'service_not_found')
    assert.deepEqual(await readStats(t), before)
  })

  it('should answer 400 for missing or wrong fields and unknown events, changing nothing', async () => {
    await createService(t, 'Steam Press', [{ description: 'A' }])
    const before = await readStats(t)
    problem(await t.post('/v1/service/add', {}), 'validation_failed', ['/service_name', '/description'])
    problem(await t.post('/v1/service/add', { service_name: 'Steam Press' }), 'validation_failed', ['/description'])
    problem(await t.post('/v1/service/add', { service_name: 'Steam Press', description: 7 }), 'validation_failed', ['/description'])
    problem(await t.post('/v1/service/add', { service_name: 'Steam Press', description: 'd'.repeat(501) }), 'validation_failed', [
      '/description'
    ])
    problem(
      await t.post('/v1/service/add', { service_name: 'Steam Press', description: 'X', events: ['trak', 'pager'] }),
      'validation_failed',
      ['/events/1']
    )
    problem(
      await t.post('/v1/service/add', { service_name: 'Steam Press', description: 'X', events: [{ event: 'sms' }] }),
      'validation_failed',
      ['/events/0']
    )
    problem(await t.post('/v1/service/add', { service_name: 'Steam Press', description: 'X', button_title: false }), 'validation_failed', [
      '/button_title'
    ])
    assert.deepEqual(await readStats(t), before)
  })

  it('should keep orders on their step when a step is inserted before it (D-42)', async () => {
    await createService(t, 'Laundry Pickup', [{ description: 'Scheduled' }, { description: 'Picked up' }, { description: 'Delivered' }])
    const customer = await createCustomer(t)
    const order = await createOrder(t, customer.id, 'Laundry Pickup')
    ok(await t.post('/v1/transaction/move', { customer_id: customer.id, transaction_id: order.transaction_id }))
    ok(await t.post('/v1/service/add', { service_name: 'Laundry Pickup', description: 'Driver assigned', position_number: 1 }))
    const view = ok(await t.post(`/v1/transaction/${order.transaction_id}`))
    assert.deepEqual(view.service.position, { position_number: '3', position_description: 'Picked up', button_title: '', events: [] })
    assert.deepEqual(view.service.progress_bar, { total_steps: 4, percentage: 75 })
    const stats = await readStats(t)
    const entries = stats.service_stats.find((s) => s.service[0]?.service_name === 'Laundry Pickup')!.service
    assert.deepEqual(
      entries.map((e) => [e.position_number, e.description, e.position_count]),
      [
        ['1', 'Driver assigned', 0],
        ['2', 'Scheduled', 0],
        ['3', 'Picked up', 1],
        ['4', 'Delivered', 0]
      ]
    )
  })

  it('should allow staff and admin keys only: app key and customer 403, no credentials 401', async () => {
    await createService(t, 'Guarded Steps', [{ description: 'A' }])
    const customer = await createCustomer(t, { password: 'correct horse battery' })
    const body = { service_name: 'Guarded Steps', description: 'B' }
    problem(await t.post('/v1/service/add', body, { auth: t.auth.app }), 'forbidden')
    problem(await t.post('/v1/service/add', body, { auth: customer.auth }), 'forbidden')
    problem(await t.post('/v1/service/add', body, { auth: null }), 'unauthenticated')
    assert.deepEqual(await descriptionsOf(t, 'Guarded Steps'), ['A'])
    assert.equal(ok(await t.post('/v1/service/add', body, { auth: t.auth.admin })).position, '2')
  })

  it('should add one step for a repeated Idempotency-Key and answer the first response again', async () => {
    await createService(t, 'Keyed Steps', [{ description: 'A' }])
    const headers = { 'idempotency-key': 'add-keyed-step' }
    const body = { service_name: 'Keyed Steps', description: 'B' }
    const first = ok(await t.post('/v1/service/add', body, { headers }))
    assert.deepEqual(ok(await t.post('/v1/service/add', body, { headers })), first)
    assert.deepEqual(await descriptionsOf(t, 'Keyed Steps'), ['A', 'B'])
    problem(await t.post('/v1/service/add', { ...body, description: 'C' }, { headers }), 'idempotency_key_reused')
    assert.deepEqual(await descriptionsOf(t, 'Keyed Steps'), ['A', 'B'])
  })
})
