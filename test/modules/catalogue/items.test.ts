import assert from 'node:assert/strict'
import { before, it } from 'node:test'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { openDatabase } from '../../../src/db/database.js'
import { describeEachDialect } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { createCustomer, createItem, createOrder, createService } from '../../helpers/factories.js'

describeEachDialect('items (spec Get items, D-45, D-46)', (t) => {
  let customerAuth = ''

  before(async () => {
    await createService(t, 'Wash & Fold', [{ description: 'Received' }, { description: 'Washed' }])
    await createService(t, 'Dry Cleaning', [{ description: 'Tagged' }])
    await createService(t, 'Empty Service', [{ description: 'Only' }])
    customerAuth = (await createCustomer(t, { password: 'correct horse battery' })).auth!
  })

  it('should create an item with defaults: group General, image_url empty', async () => {
    const item = ok(await t.post('/v1/item/create', { service_name: 'Wash & Fold', title: 'Shirt', price: 250 }))
    assert.match(item.item_id, /^[0-9]+$/)
    // D-45 "answers with the item": exactly the spec's Item, no group or service (decisions.md, additive fields).
    assert.deepEqual(item, { item_id: item.item_id, title: 'Shirt', image_url: '', price: '250' })
    const groups = ok(await t.post('/v1/service/Wash%20%26%20Fold')).item_group
    assert.deepEqual(
      groups.find((g: { item: Array<{ item_id: string }> }) => g.item.some((i) => i.item_id === item.item_id))?.group,
      'General'
    )
  })

  it('should create an item with a group and image, price as digit text, the service found ignoring case', async () => {
    const item = ok(
      await t.post('/v1/item/create', {
        service_name: 'wash & fold',
        title: ' Duvet ',
        price: '1999',
        image_url: 'duvet.png',
        group: ' Bedding '
      })
    )
    assert.deepEqual(item, { item_id: item.item_id, title: 'Duvet', image_url: 'duvet.png', price: '1999' })
    const groups = ok(await t.post('/v1/service/Wash%20%26%20Fold')).item_group
    assert.deepEqual(
      groups.find((g: { item: Array<{ item_id: string }> }) => g.item.some((i) => i.item_id === item.item_id))?.group,
      'Bedding'
    )
  })

  it('should accept the price bounds 0 and 10000000', async () => {
    assert.equal(ok(await t.post('/v1/item/create', { service_name: 'Dry Cleaning', title: 'Free', price: 0 })).price, '0')
    assert.equal(ok(await t.post('/v1/item/create', { service_name: 'Dry Cleaning', title: 'Gown', price: '10000000' })).price, '10000000')
  })

  it('should read digit text of up to 20 digits by its value, leading zeros and all (D-45)', async () => {
    ok(await t.post('/v1/service/create', { service_name: 'Padding', description: 'x' }))
    assert.equal(
      ok(await t.post('/v1/item/create', { service_name: 'Padding', title: 'Padded', price: '00000000000000000001' })).price,
      '1'
    )
    assert.equal(
      ok(await t.post('/v1/item/create', { service_name: 'Padding', title: 'Padded Gown', price: '00000000000010000000' })).price,
      '10000000'
    )
    for (const price of ['000000000000000000001', '00000000000010000001', '99999999999999999999']) {
      problem(await t.post('/v1/item/create', { service_name: 'Padding', title: 'Too Long', price }), 'validation_failed', ['/price'])
    }
  })

  it('should answer 400 naming /price for prices out of range or not whole, changing nothing', async () => {
    const before = ok(await t.post('/v1/service/Dry%20Cleaning'))
    for (const price of [-1, '-1', 10_000_001, '10000001', 1.5, '1.5', '12a', '', ' 12', '1e3', null, true, '99999999999999999999']) {
      problem(await t.post('/v1/item/create', { service_name: 'Dry Cleaning', title: 'Bad', price }), 'validation_failed', ['/price'])
    }
    assert.deepEqual(ok(await t.post('/v1/service/Dry%20Cleaning')), before)
  })

  it('should answer 400 for missing or blank fields and 404 for an unknown service', async () => {
    problem(await t.post('/v1/item/create', {}), 'validation_failed', ['/service_name', '/title', '/price'])
    problem(await t.post('/v1/item/create', { service_name: 'Dry Cleaning', title: '   ', price: 1 }), 'validation_failed', ['/title'])
    problem(await t.post('/v1/item/create', { service_name: 'Dry Cleaning', title: '', price: 1 }), 'validation_failed', ['/title'])
    problem(await t.post('/v1/item/create', { service_name: 'Dry Cleaning', title: 'x'.repeat(501), price: 1 }), 'validation_failed', [
      '/title'
    ])
    problem(await t.post('/v1/item/create', { service_name: 'Dry Cleaning', title: 'T', price: 1, group: '  ' }), 'validation_failed', [
      '/group'
    ])
    problem(await t.post('/v1/item/create', { service_name: 'Dry Cleaning', title: 'T', price: 1, image_url: 5 }), 'validation_failed', [
      '/image_url'
    ])
    problem(await t.post('/v1/item/create', { service_name: 'No Such Service', title: 'T', price: 1 }), 'service_not_found')
  })

  it('should list a service without items with item_count 0 and no groups', async () => {
    const response = await t.post('/v1/service/Empty%20Service')
    assert.deepEqual(ok(response), { item: { item_count: 0, service_name: 'Empty Service' }, item_group: [] })
  })

  it('should group items: groups in order of their first item id, items by id, each group named (D-46)', async () => {
    await createService(t, 'Home Cleaning', [{ description: 'Booked' }])
    const kitchen = await createItem(t, 'Home Cleaning', 'Oven', 4500, 'Kitchen')
    const bath = await createItem(t, 'Home Cleaning', 'Bathtub', 3000, 'Bathroom')
    const fridge = await createItem(t, 'Home Cleaning', 'Fridge', 2500, 'Kitchen')
    const windows = await createItem(t, 'Home Cleaning', 'Windows', 1500)
    const shower = await createItem(t, 'Home Cleaning', 'Shower', 2000, 'Bathroom')
    const expected = {
      item: { item_count: 5, service_name: 'Home Cleaning' },
      item_group: [
        {
          group: 'Kitchen',
          item: [
            { item_id: kitchen, title: 'Oven', image_url: 'oven.png', price: '4500' },
            { item_id: fridge, title: 'Fridge', image_url: 'fridge.png', price: '2500' }
          ]
        },
        {
          group: 'Bathroom',
          item: [
            { item_id: bath, title: 'Bathtub', image_url: 'bathtub.png', price: '3000' },
            { item_id: shower, title: 'Shower', image_url: 'shower.png', price: '2000' }
          ]
        },
        { group: 'General', item: [{ item_id: windows, title: 'Windows', image_url: 'windows.png', price: '1500' }] }
      ]
    }
    const response = await t.post('/v1/service/Home%20Cleaning')
    assert.deepEqual(ok(response), expected)
    assert.equal(response.body, JSON.stringify(expected))
    assert.deepEqual(ok(await t.post('/v1/service/HOME%20CLEANING')), expected)
  })

  it('should list only the service’s own items', async () => {
    const body = ok(await t.post('/v1/service/Dry%20Cleaning'))
    assert.equal(body.item.service_name, 'Dry Cleaning')
    assert.deepEqual(
      body.item_group.flatMap((g: { item: { title: string }[] }) => g.item.map((i) => i.title)),
      ['Free', 'Gown']
    )
    assert.equal(body.item.item_count, 2)
  })

  it('should update only the fields sent, a group change moving the item between groups', async () => {
    await createService(t, 'Shoe Repair', [{ description: 'Received' }])
    const heel = await createItem(t, 'Shoe Repair', 'Heel', 1200, 'Repairs')
    const polish = await createItem(t, 'Shoe Repair', 'Polish', 500, 'Care')
    assert.deepEqual(ok(await t.post('/v1/item/update', { item_id: heel, price: '1300' })), {
      item_id: heel,
      title: 'Heel',
      image_url: 'heel.png',
      price: '1300'
    })
    assert.deepEqual(ok(await t.post('/v1/item/update', { item_id: Number(heel), title: 'Heel tip', image_url: '', group: 'Care' })), {
      item_id: heel,
      title: 'Heel tip',
      image_url: '',
      price: '1300'
    })
    assert.deepEqual(ok(await t.post('/v1/item/update', { item_id: polish })), {
      item_id: polish,
      title: 'Polish',
      image_url: 'polish.png',
      price: '500'
    })
    assert.deepEqual(ok(await t.post('/v1/service/Shoe%20Repair')), {
      item: { item_count: 2, service_name: 'Shoe Repair' },
      item_group: [
        {
          group: 'Care',
          item: [
            { item_id: heel, title: 'Heel tip', image_url: '', price: '1300' },
            { item_id: polish, title: 'Polish', image_url: 'polish.png', price: '500' }
          ]
        }
      ]
    })
    for (const price of [-1, 10_000_001, 1.5, '12a']) {
      problem(await t.post('/v1/item/update', { item_id: heel, price }), 'validation_failed', ['/price'])
    }
    problem(await t.post('/v1/item/update', { item_id: heel, title: ' ' }), 'validation_failed', ['/title'])
    problem(await t.post('/v1/item/update', { item_id: heel, group: '' }), 'validation_failed', ['/group'])
    problem(await t.post('/v1/item/update', { title: 'No id' }), 'validation_failed', ['/item_id'])
    assert.equal(ok(await t.post('/v1/service/Shoe%20Repair')).item_group[0].item[0].price, '1300')
  })

  it('should answer 404 item_not_found when updating or removing an unknown item', async () => {
    for (const item_id of ['999999', 999_999, '0', 'abc', '-1', '1.5']) {
      const body = problem(await t.post('/v1/item/update', { item_id, title: 'x' }), 'item_not_found')
      assert.equal(body.detail, 'No item with this id exists.')
      problem(await t.post('/v1/item/remove', { item_id }), 'item_not_found')
    }
  })

  it('should hide a removed item from get items and item_count while receipts keep their line', async () => {
    await createService(t, 'Laundry', [{ description: 'Received' }, { description: 'Done' }])
    const sheet = await createItem(t, 'Laundry', 'Sheet', 700, 'Bedding')
    const towel = await createItem(t, 'Laundry', 'Towel', 300, 'Bath')
    const pillow = await createItem(t, 'Laundry', 'Pillow', 900, 'Bedding')
    const customer = await createCustomer(t)
    const order = await createOrder(t, customer.id, 'Laundry')
    ok(await t.post('/v1/receipt/add', { transaction_id: order.transaction_id, item_id: towel }))
    const withTowel = ok(await t.post(`/v1/transaction/${order.transaction_id}`))

    assert.deepEqual(ok(await t.post('/v1/item/remove', { item_id: towel })), {
      item_id: towel,
      title: 'Towel',
      image_url: 'towel.png',
      price: '300'
    })
    assert.deepEqual(ok(await t.post('/v1/service/Laundry')), {
      item: { item_count: 2, service_name: 'Laundry' },
      item_group: [
        {
          group: 'Bedding',
          item: [
            { item_id: sheet, title: 'Sheet', image_url: 'sheet.png', price: '700' },
            { item_id: pillow, title: 'Pillow', image_url: 'pillow.png', price: '900' }
          ]
        }
      ]
    })
    const view = ok(await t.post(`/v1/transaction/${order.transaction_id}`))
    assert.deepEqual(view.receipt, [
      { receipt_id: view.receipt[0].receipt_id, item_id: towel, title: 'Towel', image_url: 'towel.png', price: '3.00', quantity: '1' }
    ])
    assert.equal(view.total, '3.00')
    assert.deepEqual(view, withTowel)

    // Removed: no more updates, removals, or new receipt lines.
    problem(await t.post('/v1/item/update', { item_id: towel, price: 1 }), 'item_not_found')
    problem(await t.post('/v1/item/remove', { item_id: towel }), 'item_not_found')
    problem(await t.post('/v1/receipt/add', { transaction_id: order.transaction_id, item_id: towel }), 'item_not_found')
  })

  it('should answer the items as they are now when another connection (another process) changed them', async () => {
    await createService(t, 'Pressing', [{ description: 'Pressed' }])
    const created = ok(await t.post('/v1/item/create', { service_name: 'Pressing', title: 'Tie', price: 300 }))
    const titles = async () =>
      ok(await t.post('/v1/service/Pressing')).item_group.flatMap((g: { item: Array<{ title: string }> }) => g.item.map((i) => i.title))
    assert.deepEqual(await titles(), ['Tie'])
    assert.deepEqual(await titles(), ['Tie'])
    // A connection of its own, as the CLI or another process has: not through this app.
    const other = openDatabase(t.config)
    try {
      await other.db.updateTable('items').set({ title: 'Bow tie' }).where('id', '=', Number(created.item_id)).execute()
    } finally {
      await other.close()
    }
    // A request sent after another process committed arrives in a later turn of the event loop;
    // within one turn the reader keeps one snapshot (SqliteReadSnapshot).
    await nextTurn()
    assert.deepEqual(await titles(), ['Bow tie'])
    // And through this app, after an answer was kept.
    ok(await t.post('/v1/item/update', { item_id: created.item_id, title: 'Cravat' }))
    assert.deepEqual(await titles(), ['Cravat'])
  })

  it('should answer 404 service_not_found for get items of an unknown service', async () => {
    problem(await t.post('/v1/service/No%20Such%20Service'), 'service_not_found')
  })

  it('should let every caller class read items, and only staff and admin keys change them', async () => {
    for (const auth of [t.auth.app, customerAuth, t.auth.staff, t.auth.admin]) {
      assert.equal(ok(await t.post('/v1/service/wash%20%26%20fold', undefined, { auth })).item.service_name, 'Wash & Fold')
    }
    problem(await t.post('/v1/service/Wash%20%26%20Fold', undefined, { auth: null }), 'unauthenticated')
    const before = ok(await t.post('/v1/service/Wash%20%26%20Fold'))
    const itemId = before.item_group[0].item[0].item_id
    for (const auth of [t.auth.app, customerAuth]) {
      problem(await t.post('/v1/item/create', { service_name: 'Wash & Fold', title: 'Sock', price: 1 }, { auth }), 'forbidden')
      problem(await t.post('/v1/item/update', { item_id: itemId, price: 1 }, { auth }), 'forbidden')
      problem(await t.post('/v1/item/remove', { item_id: itemId }, { auth }), 'forbidden')
    }
    problem(await t.post('/v1/item/create', { service_name: 'Wash & Fold', title: 'Sock', price: 1 }, { auth: null }), 'unauthenticated')
    assert.deepEqual(ok(await t.post('/v1/service/Wash%20%26%20Fold')), before)
    ok(await t.post('/v1/item/create', { service_name: 'Wash & Fold', title: 'Sock', price: 1 }, { auth: t.auth.admin }))
  })

  it('should create one item for a repeated Idempotency-Key', async () => {
    await createService(t, 'Keyed Items', [{ description: 'A' }])
    const headers = { 'idempotency-key': 'item-create-1' }
    const body = { service_name: 'Keyed Items', title: 'Coat', price: 1500 }
    const first = ok(await t.post('/v1/item/create', body, { headers }))
    assert.deepEqual(ok(await t.post('/v1/item/create', body, { headers })), first)
    assert.equal(ok(await t.post('/v1/service/Keyed%20Items')).item.item_count, 1)
    problem(await t.post('/v1/item/create', { ...body, price: 1600 }, { headers }), 'idempotency_key_reused')
  })
})
