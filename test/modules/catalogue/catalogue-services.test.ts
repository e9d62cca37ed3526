import assert from 'node:assert/strict'
import { it } from 'node:test'
import { describeEachDialect } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { createCustomer, createService } from '../../helpers/factories.js'
import { catalogueOf, ISO, readStats, serviceIdOf } from './support.js'

describeEachDialect('catalogue services: every service with its steps (D-47) and expected minutes (D-48)', (t) => {
  it('should list every service in creation order with every field of every step', async () => {
    const before = t.clock.now()
    ok(
      await t.post('/v1/service/create', {
        service_name: 'Catalogue Laundry',
        description: 'Received',
        button_title: 'Receive',
        events: ['email', { event: 'trak' }],
        image_title: 'laundry',
        expected_minutes: 30
      })
    )
    ok(await t.post('/v1/service/add', { service_name: 'catalogue laundry', description: 'Washed', expected_minutes: 43_200 }))
    ok(
      await t.post('/v1/service/add', {
        service_name: 'Catalogue Laundry',
        description: 'Folded',
        button_title: 'Fold',
        events: [{ event: 'text' }],
        expected_minutes: null
      })
    )
    await createService(t, 'Catalogue Shoes', [{ description: 'Soled', expected_minutes: 1 }])
    const after = t.clock.now()
    const body = ok(await t.post('/v1/catalogue/services'))
    assert.deepEqual(Object.keys(body), ['services'])
    const names = body.services.map((s: { service_name: string }) => s.service_name)
    assert.deepEqual(names.slice(-2), ['Catalogue Laundry', 'Catalogue Shoes'])
    const [laundry, shoes] = body.services.slice(-2)
    for (const service of [laundry, shoes]) {
      assert.match(service.created_at, ISO)
      const at = Date.parse(service.created_at)
      assert.ok(at >= before && at <= after, service.created_at)
    }
    assert.deepEqual(laundry, {
      service_id: await serviceIdOf(t, 'Catalogue Laundry'),
      service_name: 'Catalogue Laundry',
      image_title: 'laundry',
      created_at: laundry.created_at,
      steps: [
        {
          position_number: '1',
          description: 'Received',
          button_title: 'Receive',
          events: [{ event: 'email' }, { event: 'trak' }],
          expected_minutes: 30
        },
        { position_number: '2', description: 'Washed', button_title: '', events: [], expected_minutes: 43_200 },
        { position_number: '3', description: 'Folded', button_title: 'Fold', events: [{ event: 'text' }], expected_minutes: null }
      ]
    })
    assert.deepEqual(shoes, {
      service_id: await serviceIdOf(t, 'Catalogue Shoes'),
      service_name: 'Catalogue Shoes',
      image_title: 'catalogue_shoes',
      created_at: shoes.created_at,
      steps: [{ position_number: '1', description: 'Soled', button_title: '', events: [], expected_minutes: 1 }]
    })
  })

  it('should answer expected_minutes null when create service and add step leave it out, and keep step order after an insert', async () => {
    await createService(t, 'Catalogue Defaults', [{ description: 'A' }, { description: 'C', expected_minutes: 5 }])
    ok(await t.post('/v1/service/add', { service_name: 'Catalogue Defaults', description: 'B', position_number: 2, expected_minutes: 7 }))
    const steps = (await catalogueOf(t, 'Catalogue Defaults')).steps
    assert.deepEqual(
      steps.map((s: Record<string, unknown>) => [s.position_number, s.description, s.expected_minutes]),
      [
        ['1', 'A', null],
        ['2', 'B', 7],
        ['3', 'C', 5]
      ]
    )
  })

  it('should answer 400 naming /expected_minutes on create service and add step for anything but a whole number 1 to 43200 or null, changing nothing', async () => {
    await createService(t, 'Catalogue Strict', [{ description: 'A' }])
    const stats = await readStats(t)
    for (const expected_minutes of [0, -1, 43_201, 1.5, '30', '', true, false, {}, [], [30], 1e100]) {
      const label = JSON.stringify(expected_minutes)
      const created = await t.post('/v1/service/create', { service_name: 'Catalogue Never', description: 'A', expected_minutes })
      assert.equal(problem(created, 'validation_failed', ['/expected_minutes']).status, 400, label)
      const added = await t.post('/v1/service/add', { service_name: 'Catalogue Strict', description: 'B', expected_minutes })
      assert.equal(problem(added, 'validation_failed', ['/expected_minutes']).status, 400, label)
    }
    assert.deepEqual(await readStats(t), stats)
    assert.equal((await catalogueOf(t, 'Catalogue Strict')).steps.length, 1)
    assert.equal(await catalogueOf(t, 'Catalogue Never').catch(() => undefined), undefined)
  })

  it('should tell why expected_minutes is refused', async () => {
    await createService(t, 'Catalogue Messages', [{ description: 'A' }])
    const messageOf = async (expected_minutes: unknown) => {
      const response = await t.post('/v1/service/add', { service_name: 'Catalogue Messages', description: 'B', expected_minutes })
      return problem(response, 'validation_failed', ['/expected_minutes']).errors[0].message
    }
    assert.equal(await messageOf('30'), 'must be a whole number from 1 to 43200, or null')
    assert.equal(await messageOf(2.5), 'must be a whole number from 1 to 43200, or null')
    assert.equal(await messageOf(0), 'must be at least 1')
    assert.equal(await messageOf(43_201), 'must be at most 43200')
  })

  it('should ignore any body and content type it is sent (D-23)', async () => {
    const plain = ok(await t.post('/v1/catalogue/services'))
    assert.deepEqual(ok(await t.post('/v1/catalogue/services', { services: [] })), plain)
    assert.deepEqual(ok(await t.post('/v1/catalogue/services', undefined, { raw: 'not json', contentType: 'text/plain' })), plain)
  })

  it('should allow staff and admin only: app key and customer 403, no credentials 401 (D-18)', async () => {
    const customer = await createCustomer(t, { password: 'customer password 1' })
    problem(await t.post('/v1/catalogue/services', undefined, { auth: t.auth.app }), 'forbidden')
    problem(await t.post('/v1/catalogue/services', undefined, { auth: customer.auth }), 'forbidden')
    const unauthenticated = await t.post('/v1/catalogue/services', undefined, { auth: null })
    problem(unauthenticated, 'unauthenticated')
    assert.equal(unauthenticated.headers['www-authenticate'], 'Basic realm="service-ordering", charset="UTF-8"')
    assert.deepEqual(
      ok(await t.post('/v1/catalogue/services', undefined, { auth: t.auth.admin })),
      ok(await t.post('/v1/catalogue/services'))
    )
  })

  it('should answer 405 with Allow: POST for another method', async () => {
    const response = await t.post('/v1/catalogue/services', undefined, { method: 'GET' })
    problem(response, 'method_not_allowed')
    assert.equal(response.headers.allow, 'POST')
  })
})
