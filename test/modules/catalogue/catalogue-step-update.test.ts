import assert from 'node:assert/strict'
import { it } from 'node:test'
import { describeEachDialect } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { createCustomer, createOrder, createService } from '../../helpers/factories.js'
import { catalogueOf, getStep, readStats, statsOf } from './support.js'

const UPDATE = '/v1/catalogue/step/update'

describeEachDialect("catalogue step update: a step's texts, events and expected minutes (D-47, D-48)", (t) => {
  it('should change the fields sent and answer the service element, keeping the rest', async () => {
    await createService(t, 'Step Edits', [
      { description: 'Received', button_title: 'Receive', events: ['email'], expected_minutes: 10 },
      { description: 'Washed', button_title: 'Wash', events: ['text'] }
    ])
    const before = await catalogueOf(t, 'Step Edits')
    const described = ok(await t.post(UPDATE, { service_name: ' step edits ', position_number: 2, description: 'Washed and dried' }))
    assert.deepEqual(described, {
      ...before,
      steps: [before.steps[0], { ...before.steps[1], description: 'Washed and dried' }]
    })
    const all = ok(
      await t.post(UPDATE, {
        service_name: 'Step Edits',
        position_number: '1',
        description: '',
        button_title: 'Take in',
        events: ['trak', { event: 'email' }, 'trak'],
        expected_minutes: 43_200
      })
    )
    assert.deepEqual(all.steps, [
      {
        position_number: '1',
        description: '',
        button_title: 'Take in',
        events: [{ event: 'trak' }, { event: 'email' }],
        expected_minutes: 43_200
      },
      { position_number: '2', description: 'Washed and dried', button_title: 'Wash', events: [{ event: 'text' }], expected_minutes: null }
    ])
    // `events: []` clears them, `expected_minutes: null` clears it; nothing sent changes nothing.
    const cleared = ok(await t.post(UPDATE, { service_name: 'Step Edits', position_number: 1, events: [], expected_minutes: null }))
    assert.deepEqual(cleared.steps[0], {
      position_number: '1',
      description: '',
      button_title: 'Take in',
      events: [],
      expected_minutes: null
    })
    assert.deepEqual(ok(await t.post(UPDATE, { service_name: 'Step Edits', position_number: 1 })), cleared)
    assert.deepEqual(await catalogueOf(t, 'Step Edits'), cleared)
    assert.equal(
      ok(await t.post(UPDATE, { service_name: 'Step Edits', position_number: 2, expected_minutes: 1 })).steps[1].expected_minutes,
      1
    )
  })

  it('should show the new texts at once in the full view of orders at the step, the step view and statistics, orders staying there', async () => {
    await createService(t, 'Live Texts', [{ description: 'Queued', button_title: 'Start' }, { description: 'Working' }])
    const customer = await createCustomer(t)
    const order = await createOrder(t, customer.id, 'Live Texts')
    // Read once before, so the texts statistics keep in memory are the old ones.
    assert.equal((await statsOf(t, 'Live Texts'))?.[0]?.description, 'Queued')
    ok(
      await t.post(UPDATE, {
        service_name: 'Live Texts',
        position_number: 1,
        description: 'In the queue',
        button_title: 'Begin',
        events: ['text']
      })
    )
    const view = ok(await t.post(`/v1/transaction/${order.transaction_id}`))
    assert.deepEqual(view.service.position, {
      position_number: '1',
      position_description: 'In the queue',
      button_title: 'Begin',
      events: [{ event: 'text' }]
    })
    assert.equal(view.status, 'open')
    assert.equal(ok(await getStep(t, 'Live Texts', 1)).position.position_description, 'In the queue')
    assert.deepEqual(
      (await statsOf(t, 'Live Texts'))?.map((e) => [e.description, e.position_count]),
      [
        ['In the queue', 1],
        ['Working', 0]
      ]
    )
    const listed = ok(await t.post('/v1/transaction/list', { service_name: 'Live Texts' })).transactions[0]
    assert.equal(listed.service.position.position_description, 'In the queue')
    const board = ok(await t.post('/v1/transaction/board', { service_name: 'Live Texts' }))
    assert.deepEqual(
      board.steps.map((s: Record<string, unknown>) => [s.description, s.button_title, s.open_count]),
      [
        ['In the queue', 'Begin', 1],
        ['Working', '', 0]
      ]
    )
  })

  it('should emit the new events on later step entries only', async () => {
    await createService(t, 'Event Swap', [{ description: 'A' }, { description: 'B', events: ['email'] }])
    const customer = await createCustomer(t)
    const order = await createOrder(t, customer.id, 'Event Swap')
    ok(await t.post(UPDATE, { service_name: 'Event Swap', position_number: 2, events: [{ event: 'text' }, 'trak'] }))
    ok(await t.post('/v1/transaction/move', { customer_id: customer.id, transaction_id: order.transaction_id }))
    const channels = await t.database.db
      .selectFrom('outbox')
      .innerJoin('orders', 'orders.id', 'outbox.order_id')
      .select('outbox.channel')
      .where('orders.public_id', '=', order.transaction_id)
      .orderBy('outbox.id')
      .execute()
    assert.deepEqual(
      channels.map((row) => row.channel),
      ['text', 'trak']
    )
  })

  it('should answer 404 step_not_found past the last step and service_not_found for an unknown service', async () => {
    await createService(t, 'Two Steps', [{ description: 'A' }, { description: 'B' }])
    for (const position_number of [3, '3', 10_000, '99999999999999999999']) {
      const body = problem(await t.post(UPDATE, { service_name: 'Two Steps', position_number, description: 'X' }), 'step_not_found')
      assert.equal(typeof body.detail, 'string')
    }
    problem(await t.post(UPDATE, { service_name: 'No Such', position_number: 1, description: 'X' }), 'service_not_found')
    problem(await t.post(UPDATE, { service_name: 'No Such', position_number: 1 }), 'service_not_found')
    assert.deepEqual(
      (await catalogueOf(t, 'Two Steps')).steps.map((s: { description: string }) => s.description),
      ['A', 'B']
    )
  })

  it('should answer 400 naming the field for every bad field, changing nothing', async () => {
    await createService(t, 'Bad Fields', [{ description: 'A' }])
    const before = await readStats(t)
    const catalogue = await catalogueOf(t, 'Bad Fields')
    const base = { service_name: 'Bad Fields', position_number: 1 }
    problem(await t.post(UPDATE, {}), 'validation_failed', ['/service_name', '/position_number'])
    problem(await t.post(UPDATE, { service_name: 'Bad Fields' }), 'validation_failed', ['/position_number'])
    problem(await t.post(UPDATE, { position_number: 1 }), 'validation_failed', ['/service_name'])
    problem(await t.post(UPDATE, { ...base, service_name: ['Bad Fields'] }), 'validation_failed', ['/service_name'])
    for (const position_number of [0, '0', -1, 1.5, '1.5', 'one', '', true, null, 10_001]) {
      problem(await t.post(UPDATE, { ...base, position_number }), 'validation_failed', ['/position_number'])
    }
    for (const description of [5, null, 'd'.repeat(501), 'a\u0001b']) {
      problem(await t.post(UPDATE, { ...base, description }), 'validation_failed', ['/description'])
    }
    for (const button_title of [false, null, 'b'.repeat(501)]) {
      problem(await t.post(UPDATE, { ...base, button_title }), 'validation_failed', ['/button_title'])
    }
    problem(await t.post(UPDATE, { ...base, events: ['email', 'pager'] }), 'validation_failed', ['/events/1'])
    problem(await t.post(UPDATE, { ...base, events: [{ event: 'sms' }] }), 'validation_failed', ['/events/0'])
    problem(await t.post(UPDATE, { ...base, events: [{ event: 5 }] }), 'validation_failed', ['/events/0/event'])
    problem(await t.post(UPDATE, { ...base, events: 'email' }), 'validation_failed', ['/events'])
    problem(await t.post(UPDATE, { ...base, events: null }), 'validation_failed', ['/events'])
    problem(await t.post(UPDATE, { ...base, events: Array(11).fill('email') }), 'validation_failed', ['/events'])
    for (const expected_minutes of [0, 43_201, 2.5, '15', true, {}, []]) {
      problem(await t.post(UPDATE, { ...base, expected_minutes }), 'validation_failed', ['/expected_minutes'])
    }
    problem(await t.post(UPDATE, { ...base, description: 7, expected_minutes: 'x' }), 'validation_failed', [
      '/description',
      '/expected_minutes'
    ])
    assert.deepEqual(await readStats(t), before)
    assert.deepEqual(await catalogueOf(t, 'Bad Fields'), catalogue)
  })

  it('should change a step once for a repeated Idempotency-Key and answer the first response again (D-52)', async () => {
    await createService(t, 'Keyed Step', [{ description: 'A' }])
    const headers = { 'idempotency-key': 'keyed-step-update' }
    const body = { service_name: 'Keyed Step', position_number: 1, description: 'B', expected_minutes: 20 }
    const first = ok(await t.post(UPDATE, body, { headers }))
    ok(await t.post(UPDATE, { service_name: 'Keyed Step', position_number: 1, description: 'C' }))
    // The repeat answers what the first call answered, and does not set B again.
    assert.deepEqual(ok(await t.post(UPDATE, body, { headers })), first)
    assert.equal((await catalogueOf(t, 'Keyed Step')).steps[0].description, 'C')
    problem(await t.post(UPDATE, { ...body, expected_minutes: 21 }, { headers }), 'idempotency_key_reused')
    problem(await t.post(UPDATE, body, { headers: { 'idempotency-key': 'k'.repeat(256) } }), 'validation_failed')
  })

  it('should allow staff and admin only: app key and customer 403, no credentials 401, changing nothing (D-18)', async () => {
    await createService(t, 'Guarded Step', [{ description: 'A' }])
    const customer = await createCustomer(t, { password: 'customer password 1' })
    const body = { service_name: 'Guarded Step', position_number: 1, description: 'B' }
    problem(await t.post(UPDATE, body, { auth: t.auth.app }), 'forbidden')
    problem(await t.post(UPDATE, body, { auth: customer.auth }), 'forbidden')
    problem(await t.post(UPDATE, body, { auth: null }), 'unauthenticated')
    assert.equal((await catalogueOf(t, 'Guarded Step')).steps[0].description, 'A')
    assert.equal(ok(await t.post(UPDATE, body, { auth: t.auth.admin })).steps[0].description, 'B')
  })
})
