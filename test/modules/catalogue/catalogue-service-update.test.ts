import assert from 'node:assert/strict'
import { it } from 'node:test'
import { ServicesService } from '../../../src/modules/catalogue/services.service.js'
import { describeEachDialect } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { createCustomer, createItem, createOrder, createService } from '../../helpers/factories.js'
import { catalogueOf, getStep, readStats, statsOf } from './support.js'

const UPDATE = '/v1/catalogue/service/update'

describeEachDialect('catalogue service update: rename and image title (D-47, D-40)', (t) => {
  it('should rename a service and answer its element of the catalogue list, keeping what was not sent', async () => {
    await createService(t, 'Rename Me', [
      { description: 'Received', button_title: 'Receive', events: ['email'], expected_minutes: 10 },
      { description: 'Done' }
    ])
    const before = await catalogueOf(t, 'Rename Me')
    const answer = ok(await t.post(UPDATE, { service_name: '  rename me ', new_name: '  Renamed Service  ' }))
    // The image title is its own field: a rename leaves it.
    assert.equal(answer.image_title, 'rename_me')
    assert.deepEqual(answer, { ...before, service_name: 'Renamed Service' })
    assert.deepEqual(await catalogueOf(t, 'Renamed Service'), answer)
    const titled = ok(await t.post(UPDATE, { service_name: 'RENAMED SERVICE', image_title: '  renamed_art ' }))
    assert.deepEqual(titled, { ...answer, image_title: 'renamed_art' })
    // Nothing to change: the element as it is.
    assert.deepEqual(ok(await t.post(UPDATE, { service_name: 'Renamed Service' })), titled)
    assert.deepEqual(
      ok(await t.post(UPDATE, { service_name: 'Renamed Service', new_name: 'Renamed Service', image_title: 'renamed_art' })),
      titled
    )
  })

  it('should use the new name at once everywhere: paths, statistics, items, transactions, and no longer the old one', async () => {
    await createService(t, 'Old Name', [{ description: 'Picked up' }, { description: 'Cleaned' }])
    const item = await createItem(t, 'Old Name', 'Shirt', 250)
    const customer = await createCustomer(t)
    const order = await createOrder(t, customer.id, 'Old Name')
    const serviceId = ok(await getStep(t, 'Old Name', 1)).service_id
    // Read once before, so every kept answer and text of the old name is in memory.
    assert.equal((await statsOf(t, 'Old Name'))?.[0]?.total_orders, 1)
    ok(await t.post('/v1/service/Old%20Name'))
    ok(await t.post('/v1/transaction/board', { service_name: 'Old Name' }))

    ok(await t.post(UPDATE, { service_name: 'Old Name', new_name: 'New Name' }))

    assert.deepEqual(ok(await getStep(t, 'new name', 2)), {
      service_id: serviceId,
      service_name: 'New Name',
      position: { position_number: '2', position_description: 'Cleaned', button_title: '', events: [] },
      progress_bar: { total_steps: 2, percentage: 100 }
    })
    problem(await getStep(t, 'Old Name', 1), 'service_not_found')
    assert.equal(await statsOf(t, 'Old Name'), undefined)
    assert.deepEqual(
      (await statsOf(t, 'New Name'))?.map((e) => e.position_count),
      [1, 0]
    )
    const items = ok(await t.post('/v1/service/New%20Name'))
    assert.deepEqual(items.item, { item_count: 1, service_name: 'New Name' })
    assert.equal(items.item_group[0].item[0].item_id, item)
    problem(await t.post('/v1/service/Old%20Name'), 'service_not_found')

    // The order keeps its service, which now has the new name.
    const view = ok(await t.post(`/v1/transaction/${order.transaction_id}`))
    assert.equal(view.service.service_id, serviceId)
    assert.equal(view.service.service_name, 'New Name')
    const listed = ok(await t.post('/v1/transaction/list', { service_name: 'NEW NAME' }))
    assert.deepEqual(
      listed.transactions.map((v: { transaction_id: string }) => v.transaction_id),
      [order.transaction_id]
    )
    assert.deepEqual(ok(await t.post('/v1/transaction/list', { service_name: 'Old Name' })).transactions, [])
    assert.equal(ok(await t.post('/v1/transaction/board', { service_name: 'New Name' })).service_name, 'New Name')
    problem(await t.post('/v1/transaction/board', { service_name: 'Old Name' }), 'service_not_found')
    const moved = ok(await t.post('/v1/transaction/move', { customer_id: customer.id, transaction_id: order.transaction_id }))
    assert.equal(moved.service.service_name, 'New Name')
    const created = await createOrder(t, customer.id, 'new name')
    assert.equal(ok(await t.post(`/v1/transaction/${created.transaction_id}`)).service.service_name, 'New Name')
    problem(
      await t.post('/v1/transaction/create', {
        customer_id: customer.id,
        service_name: 'Old Name',
        pickup_timestamp: 1_793_344_500,
        delivery_timestamp: 1_793_430_900
      }),
      'service_not_found'
    )
    // The old name is free again.
    await createService(t, 'Old Name', [{ description: 'Fresh' }])
    assert.equal(ok(await getStep(t, 'Old Name', 1)).position.position_description, 'Fresh')
  })

  it('should show the new name and texts in statistics another process keeps texts of (D-44, D-47)', async () => {
    await createService(t, 'Elsewhere', [{ description: 'First' }])
    // Another process's statistics: their own texts in memory, the same database.
    const other = new ServicesService(t.database, undefined as never, undefined as never)
    const entryOf = async (name: string) => (await other.stats()).service_stats.find((s) => s.service[0]!.service_name === name)?.service
    assert.equal((await entryOf('Elsewhere'))?.[0]?.description, 'First')
    ok(await t.post(UPDATE, { service_name: 'Elsewhere', new_name: 'Elsewhere Renamed', image_title: 'away' }))
    ok(await t.post('/v1/catalogue/step/update', { service_name: 'Elsewhere Renamed', position_number: 1, description: 'Prime' }))
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(await entryOf('Elsewhere'), undefined)
    const [entry] = (await entryOf('Elsewhere Renamed'))!
    assert.deepEqual([entry?.service_name, entry?.image_title, entry?.description], ['Elsewhere Renamed', 'away', 'Prime'])
  })

  it('should allow a new case of its own name, and answer 409 service_exists for a name another service has in any case', async () => {
    await createService(t, 'Case Service', [{ description: 'A' }])
    await createService(t, 'Taken Name', [{ description: 'B' }])
    assert.equal(ok(await t.post(UPDATE, { service_name: 'case service', new_name: 'CASE Service' })).service_name, 'CASE Service')
    const before = await readStats(t)
    for (const new_name of ['Taken Name', 'taken name', ' TAKEN NAME ']) {
      problem(await t.post(UPDATE, { service_name: 'Case Service', new_name, image_title: 'never' }), 'service_exists')
    }
    assert.deepEqual(await readStats(t), before)
    assert.equal((await catalogueOf(t, 'CASE Service')).image_title, 'case_service')
  })

  it('should answer 400 naming /new_name for names D-40 refuses, changing nothing', async () => {
    await createService(t, 'Strict Rename', [{ description: 'A' }])
    const before = await readStats(t)
    const refused: Array<[unknown, string]> = [
      ['', 'must not be empty'],
      ['   ', 'must not be empty'],
      ['a/b', 'must not contain /'],
      ['Stats', 'must not be create, add, remove or stats'],
      ['CREATE', 'must not be create, add, remove or stats'],
      [' add ', 'must not be create, add, remove or stats'],
      ['remove', 'must not be create, add, remove or stats'],
      ['.', 'must not be "." or ".."'],
      ['..', 'must not be "." or ".."'],
      ['x'.repeat(101), 'must be at most 100 characters'],
      ['tab\tinside', 'must not contain control characters']
    ]
    for (const [new_name, message] of refused) {
      const body = problem(await t.post(UPDATE, { service_name: 'Strict Rename', new_name }), 'validation_failed', ['/new_name'])
      assert.equal(body.errors[0].message, message, JSON.stringify(new_name))
    }
    for (const new_name of [7, null, true, ['a'], { name: 'a' }, 'bell\u0007']) {
      problem(await t.post(UPDATE, { service_name: 'Strict Rename', new_name }), 'validation_failed', ['/new_name'])
    }
    assert.deepEqual(await readStats(t), before)
    // 100 characters once trimmed is fine.
    const longest = 'y'.repeat(100)
    assert.equal(ok(await t.post(UPDATE, { service_name: 'Strict Rename', new_name: ` ${longest} ` })).service_name, longest)
  })

  it('should answer 400 for a missing or wrong service_name and a wrong image_title, and 404 for an unknown service', async () => {
    await createService(t, 'Field Checks', [{ description: 'A' }])
    const before = await readStats(t)
    problem(await t.post(UPDATE, {}), 'validation_failed', ['/service_name'])
    problem(await t.post(UPDATE, { service_name: 5 }), 'validation_failed', ['/service_name'])
    problem(await t.post(UPDATE, { service_name: 'x'.repeat(101) }), 'validation_failed', ['/service_name'])
    problem(await t.post(UPDATE, { service_name: 'Field Checks', image_title: 'i'.repeat(101) }), 'validation_failed', ['/image_title'])
    problem(await t.post(UPDATE, { service_name: 'Field Checks', image_title: 3 }), 'validation_failed', ['/image_title'])
    problem(await t.post(UPDATE, { service_name: 'Field Checks', image_title: 'a\u0000b' }), 'validation_failed', ['/image_title'])
    problem(await t.post(UPDATE, { service_name: 'Field Checks', new_name: 9, image_title: 9 }), 'validation_failed', [
      '/new_name',
      '/image_title'
    ])
    const missing = problem(await t.post(UPDATE, { service_name: 'No Such Service', new_name: 'Whatever' }), 'service_not_found')
    assert.equal(missing.detail, 'No service with this name exists.')
    problem(await t.post(UPDATE, { service_name: 'no\u0000such' }), 'service_not_found')
    problem(await t.post(UPDATE, '[]' as never), 'validation_failed')
    problem(await t.post(UPDATE, undefined, { raw: '{"service_name":', contentType: 'application/json' }), 'invalid_json')
    assert.deepEqual(await readStats(t), before)
  })

  it('should rename once for a repeated Idempotency-Key and answer the first response again (D-52)', async () => {
    await createService(t, 'Keyed Rename', [{ description: 'A' }])
    const headers = { 'idempotency-key': 'rename-keyed-service' }
    const body = { service_name: 'Keyed Rename', new_name: 'Keyed Renamed' }
    const first = ok(await t.post(UPDATE, body, { headers }))
    assert.equal(first.service_name, 'Keyed Renamed')
    // The repeat names a service that is no longer called so: the first answer, nothing done.
    assert.deepEqual(ok(await t.post(UPDATE, body, { headers })), first)
    problem(await t.post(UPDATE, { ...body, new_name: 'Keyed Other' }, { headers }), 'idempotency_key_reused')
    problem(
      await t.post('/v1/catalogue/step/update', { service_name: 'Keyed Renamed', position_number: 1 }, { headers }),
      'idempotency_key_reused'
    )
    assert.equal((await catalogueOf(t, 'Keyed Renamed')).service_name, 'Keyed Renamed')
    problem(await t.post(UPDATE, body), 'service_not_found')
  })

  it('should allow staff and admin only: app key and customer 403, no credentials 401, changing nothing (D-18)', async () => {
    await createService(t, 'Guarded Rename', [{ description: 'A' }])
    const customer = await createCustomer(t, { password: 'customer password 1' })
    const body = { service_name: 'Guarded Rename', new_name: 'Guarded Renamed' }
    problem(await t.post(UPDATE, body, { auth: t.auth.app }), 'forbidden')
    problem(await t.post(UPDATE, body, { auth: customer.auth }), 'forbidden')
    problem(await t.post(UPDATE, body, { auth: null }), 'unauthenticated')
    assert.equal((await catalogueOf(t, 'Guarded Rename')).service_name, 'Guarded Rename')
    assert.equal(ok(await t.post(UPDATE, body, { auth: t.auth.admin })).service_name, 'Guarded Renamed')
  })
})
