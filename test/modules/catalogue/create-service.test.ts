import assert from 'node:assert/strict'
import { it } from 'node:test'
import { describeEachDialect } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { createCustomer } from '../../helpers/factories.js'
import { getStep, readStats, serviceIdOf, statsOf } from './support.js'

describeEachDialect('create service (spec Create service, D-40, D-41)', (t) => {
  it('should create a service with defaults: step 1 is the description, no button title, no events', async () => {
    assert.deepEqual(ok(await t.post('/v1/service/create', { service_name: 'Wash & Fold', description: 'Order received' })), {
      message: 'successfully created'
    })
    const id = await serviceIdOf(t, 'Wash & Fold')
    assert.deepEqual(ok(await getStep(t, 'Wash & Fold', 1)), {
      service_id: id,
      service_name: 'Wash & Fold',
      position: { position_number: '1', position_description: 'Order received', button_title: '', events: [] },
      progress_bar: { total_steps: 1, percentage: 100 }
    })
    assert.deepEqual(await statsOf(t, 'Wash & Fold'), [
      {
        service_name: 'Wash & Fold',
        image_title: 'wash_fold',
        shade: 'd',
        position_number: '1',
        description: 'Order received',
        position_count: 0,
        total_orders: 0
      }
    ])
  })

  it('should derive image_title from the name: lower-cased, runs of other characters than a-z0-9 as one _', async () => {
    const cases: Array<[string, string]> = [
      ['Dry Cleaning', 'dry_cleaning'],
      ['Shoe   Repair -- Express 24h', 'shoe_repair_express_24h'],
      ['(Rugs) & Curtains!', '_rugs_curtains_'],
      ['Café Crème', 'caf_cr_me'],
      ['ALTERATIONS2GO', 'alterations2go']
    ]
    for (const [name] of cases) ok(await t.post('/v1/service/create', { service_name: name, description: 'Start' }))
    for (const [name, imageTitle] of cases) {
      const entries = await statsOf(t, name)
      assert.equal(entries?.[0]?.image_title, imageTitle, name)
    }
  })

  it('should accept button_title, an explicit image_title and events as strings or {event} objects', async () => {
    ok(
      await t.post('/v1/service/create', {
        service_name: 'Home Cleaning',
        description: 'Booking confirmed',
        button_title: 'Confirm booking',
        image_title: 'home_clean',
        events: ['email', { event: 'text' }, 'trak']
      })
    )
    const id = await serviceIdOf(t, 'Home Cleaning')
    assert.deepEqual(ok(await getStep(t, 'home cleaning', 1)), {
      service_id: id,
      service_name: 'Home Cleaning',
      position: {
        position_number: '1',
        position_description: 'Booking confirmed',
        button_title: 'Confirm booking',
        events: [{ event: 'email' }, { event: 'text' }, { event: 'trak' }]
      },
      progress_bar: { total_steps: 1, percentage: 100 }
    })
    assert.equal((await statsOf(t, 'Home Cleaning'))?.[0]?.image_title, 'home_clean')
  })

  it('should store the name trimmed and find it by the trimmed name in any case', async () => {
    ok(await t.post('/v1/service/create', { service_name: '  Ironing Service \t', description: 'Received' }))
    const view = ok(await getStep(t, 'IRONING SERVICE', 1))
    assert.equal(view.service_name, 'Ironing Service')
    assert.equal((await statsOf(t, 'Ironing Service'))?.[0]?.image_title, 'ironing_service')
  })

  it('should answer 409 service_exists for a name that exists in another case or with spaces, changing nothing', async () => {
    ok(await t.post('/v1/service/create', { service_name: 'Pet Grooming', description: 'Booked' }))
    const before = await readStats(t)
    for (const name of ['pet grooming', 'PET GROOMING', '  Pet Grooming  ', 'pEt gRoOmInG']) {
      const body = problem(await t.post('/v1/service/create', { service_name: name, description: 'Other' }), 'service_exists')
      assert.equal(body.detail, 'A service with this name already exists.')
    }
    assert.deepEqual(await readStats(t), before)
  })

  it('should answer 400 for reserved names in any case, naming /service_name', async () => {
    const before = await readStats(t)
    for (const name of ['create', 'ADD', 'Remove', 'sTaTs', '  stats  ']) {
      problem(await t.post('/v1/service/create', { service_name: name, description: 'x' }), 'validation_failed', ['/service_name'])
    }
    assert.deepEqual(await readStats(t), before)
  })

  it('should answer 400 for the names . and .., which a path could not reach (clients resolve dot segments)', async () => {
    const before = await readStats(t)
    for (const name of ['.', '..', '  ..  ']) {
      const body = problem(await t.post('/v1/service/create', { service_name: name, description: 'x' }), 'validation_failed', [
        '/service_name'
      ])
      assert.deepEqual(body.errors, [{ field: '/service_name', message: 'must not be "." or ".."' }])
    }
    assert.deepEqual(await readStats(t), before)
    // Dots inside a name are fine.
    ok(await t.post('/v1/service/create', { service_name: '...', description: 'x' }))
    ok(await t.post('/v1/service/create', { service_name: 'Dr. Clean', description: 'x' }))
  })

  it('should answer 400 for a name with /, an empty or blank name, and a name over 100 characters', async () => {
    const before = await readStats(t)
    for (const name of ['Wash/Fold', '/', 'a/b/c', '', '   ', 'x'.repeat(101)]) {
      problem(await t.post('/v1/service/create', { service_name: name, description: 'x' }), 'validation_failed', ['/service_name'])
    }
    assert.deepEqual(await readStats(t), before)
    ok(await t.post('/v1/service/create', { service_name: 'y'.repeat(100), description: 'x' }))
    assert.equal(ok(await getStep(t, 'Y'.repeat(100), 1)).service_name, 'y'.repeat(100))
  })

  it('should count the 100 characters of a name after trimming, in characters, not UTF-16 units (D-40, D-70)', async () => {
    const before = await readStats(t)
    for (const name of [`  ${'q'.repeat(101)}  `, '😀'.repeat(101), 'x'.repeat(5000)]) {
      const body = problem(await t.post('/v1/service/create', { service_name: name, description: 'x' }), 'validation_failed')
      assert.deepEqual(body.errors, [{ field: '/service_name', message: 'must be at most 100 characters' }])
    }
    assert.deepEqual(await readStats(t), before)
    const padded = `  ${'p'.repeat(100)}  `
    ok(await t.post('/v1/service/create', { service_name: padded, description: 'x' }))
    ok(await t.post('/v1/service/create', { service_name: '😀'.repeat(100), description: 'x' }))
    assert.equal(ok(await getStep(t, '😀'.repeat(100), 1)).service_name, '😀'.repeat(100))
    // The padded name is a key to the service too, wherever a body names one; past 100 characters
    // once trimmed a key is 400 like any over-long text (D-70), in every operation that takes one.
    ok(await t.post('/v1/service/add', { service_name: padded, description: 'Second' }))
    assert.equal(ok(await getStep(t, 'p'.repeat(100), 2)).position.position_description, 'Second')
    const item = ok(await t.post('/v1/item/create', { service_name: padded, title: 'Padded', price: 100 }))
    assert.equal(item.title, 'Padded')
    const customer = await createCustomer(t)
    const order = ok(
      await t.post('/v1/transaction/create', {
        customer_id: customer.id,
        service_name: padded,
        pickup_timestamp: 1_793_344_500,
        delivery_timestamp: 1_793_430_900
      })
    )
    assert.equal(order.service_name, 'p'.repeat(100))
    const tooLong = `  ${'p'.repeat(101)}  `
    for (const [path, body] of [
      ['/v1/service/add', { service_name: tooLong, description: 'x' }],
      ['/v1/service/remove', { service_name: tooLong, position_number: 1 }],
      ['/v1/item/create', { service_name: tooLong, title: 'x', price: 1 }],
      [
        '/v1/transaction/create',
        { customer_id: customer.id, service_name: tooLong, pickup_timestamp: 1_793_344_500, delivery_timestamp: 1_793_430_900 }
      ],
      ['/v1/transaction/update', { transaction_id: order.transaction_id, service_name: tooLong }]
    ] as const) {
      const answer = problem(await t.post(path, body), 'validation_failed')
      assert.deepEqual(answer.errors, [{ field: '/service_name', message: 'must be at most 100 characters' }], path)
    }
    assert.equal(ok(await getStep(t, 'p'.repeat(100), 2)).progress_bar.total_steps, 2)
  })

  it('should answer 400 for over-long description, button_title and image_title', async () => {
    const before = await readStats(t)
    problem(await t.post('/v1/service/create', { service_name: 'Long A', description: 'd'.repeat(501) }), 'validation_failed', [
      '/description'
    ])
    problem(
      await t.post('/v1/service/create', { service_name: 'Long B', description: 'd', button_title: 'b'.repeat(501) }),
      'validation_failed',
      ['/button_title']
    )
    problem(
      await t.post('/v1/service/create', { service_name: 'Long C', description: 'd', image_title: 'i'.repeat(101) }),
      'validation_failed',
      ['/image_title']
    )
    assert.deepEqual(await readStats(t), before)
  })

  it('should answer 400 naming every field of the wrong type', async () => {
    const before = await readStats(t)
    problem(
      await t.post('/v1/service/create', { service_name: 5, description: null, button_title: 1, events: 'email', image_title: [] }),
      'validation_failed',
      ['/service_name', '/description', '/button_title', '/events', '/image_title']
    )
    problem(await t.post('/v1/service/create', { service_name: 'Typed', description: 'd', events: [1] }), 'validation_failed', [
      '/events/0'
    ])
    assert.deepEqual(await readStats(t), before)
  })

  it('should answer 400 naming missing fields', async () => {
    problem(await t.post('/v1/service/create', {}), 'validation_failed', ['/service_name', '/description'])
    problem(await t.post('/v1/service/create', { service_name: 'Only Name' }), 'validation_failed', ['/description'])
    problem(await t.post('/v1/service/create', { description: 'Only description' }), 'validation_failed', ['/service_name'])
  })

  it('should answer 400 naming /events/<index> for an unknown event, as text or object, changing nothing', async () => {
    const before = await readStats(t)
    const first = problem(
      await t.post('/v1/service/create', { service_name: 'Evented', description: 'd', events: ['email', 'fax'] }),
      'validation_failed',
      ['/events/1']
    )
    assert.match(first.errors[0].message, /email.*text.*trak/)
    problem(
      await t.post('/v1/service/create', { service_name: 'Evented', description: 'd', events: [{ event: 'EMAIL' }] }),
      'validation_failed',
      ['/events/0']
    )
    problem(
      await t.post('/v1/service/create', { service_name: 'Evented', description: 'd', events: ['text', 'trak', { event: '' }] }),
      'validation_failed',
      ['/events/2']
    )
    assert.deepEqual(await readStats(t), before)
    assert.equal((await getStep(t, 'Evented', 1)).statusCode, 404)
  })

  it('should answer 400 invalid_json for a broken body and 415 for another content type', async () => {
    problem(await t.post('/v1/service/create', undefined, { raw: '{"service_name": ', contentType: 'application/json' }), 'invalid_json')
    problem(await t.post('/v1/service/create', undefined, { raw: 'service_name=x', contentType: 'text/plain' }), 'unsupported_media_type')
  })

  it('should allow staff and admin keys only: app key and customer 403, no credentials 401', async () => {
    const customer = await createCustomer(t, { password: 'correct horse battery' })
    const body = { service_name: 'Guarded', description: 'd' }
    problem(await t.post('/v1/service/create', body, { auth: t.auth.app }), 'forbidden')
    problem(await t.post('/v1/service/create', body, { auth: customer.auth }), 'forbidden')
    const unauthenticated = await t.post('/v1/service/create', body, { auth: null })
    problem(unauthenticated, 'unauthenticated')
    assert.equal(unauthenticated.headers['www-authenticate'], 'Basic realm="service-ordering", charset="UTF-8"')
    assert.equal((await getStep(t, 'Guarded', 1)).statusCode, 404)
    ok(await t.post('/v1/service/create', body, { auth: t.auth.admin }))
  })

  it('should replay the first answer for a repeated Idempotency-Key and create one service; another body is 422', async () => {
    const headers = { 'idempotency-key': 'create-laundry-1' }
    const body = { service_name: 'Express Laundry', description: 'Bag received' }
    assert.deepEqual(ok(await t.post('/v1/service/create', body, { headers })), { message: 'successfully created' })
    assert.deepEqual(ok(await t.post('/v1/service/create', body, { headers })), { message: 'successfully created' })
    const stats = await readStats(t)
    assert.equal(stats.service_stats.filter((s) => s.service[0]?.service_name === 'Express Laundry').length, 1)
    // Without the key the same request is a second create: the name exists.
    problem(await t.post('/v1/service/create', body), 'service_exists')
    problem(await t.post('/v1/service/create', { ...body, description: 'Other' }, { headers }), 'idempotency_key_reused')
    problem(
      await t.post('/v1/service/create', { service_name: 'Another Laundry', description: 'x' }, { headers }),
      'idempotency_key_reused'
    )
    assert.equal((await getStep(t, 'Another Laundry', 1)).statusCode, 404)
    assert.deepEqual(await readStats(t), stats)
  })

  it('should list services in statistics in creation order', async () => {
    const names = (await readStats(t)).service_stats.map((s) => s.service[0]!.service_name)
    const expected = [
      'Wash & Fold',
      'Dry Cleaning',
      'Shoe   Repair -- Express 24h',
      '(Rugs) & Curtains!',
      'Café Crème',
      'ALTERATIONS2GO',
      'Home Cleaning',
      'Ironing Service',
      'Pet Grooming',
      '...',
      'Dr. Clean',
      'y'.repeat(100),
      'p'.repeat(100),
      '😀'.repeat(100),
      'Guarded',
      'Express Laundry'
    ]
    assert.deepEqual(names, expected)
  })
})
