import assert from 'node:assert/strict'
import { before, it } from 'node:test'
import { describeEachDialect } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { createItem, createOrder, createService } from '../../helpers/factories.js'
import { countRows, orderFixture } from './support.js'

const EMPTY = [{ receipt_id: null, item_id: null, title: null, image_url: null, price: '0.00', quantity: null }]

describeEachDialect('add to and remove from receipt (D-54)', (t) => {
  let f: Awaited<ReturnType<typeof orderFixture>>
  before(async () => {
    f = await orderFixture(t)
    await createService(t, 'Home Cleaning', [{ description: 'Booked' }])
  })

  const add = (transactionId: string, itemId: unknown, extra: Record<string, unknown> = {}, auth?: string) =>
    t.post('/v1/receipt/add', { transaction_id: transactionId, item_id: itemId, ...extra }, auth === undefined ? {} : { auth })
  const remove = (transactionId: string, itemId: unknown, auth?: string) =>
    t.post('/v1/receipt/remove', { transaction_id: transactionId, item_id: itemId }, auth === undefined ? {} : { auth })

  it('should add an item, raise its quantity on a repeat, add `quantity` at once, and total in cents', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    let view = ok(await add(o.transaction_id, f.suit))
    assert.deepEqual(view.receipt, [
      { receipt_id: view.receipt[0].receipt_id, item_id: f.suit, title: 'Suit', image_url: 'suit.png', price: '19.99', quantity: '1' }
    ])
    assert.equal(view.total, '19.99')
    view = ok(await add(o.transaction_id, f.suit))
    assert.equal(view.receipt.length, 1)
    assert.deepEqual([view.receipt[0].price, view.receipt[0].quantity, view.total], ['39.98', '2', '39.98'])
    view = ok(await add(o.transaction_id, Number(f.shirt), { quantity: '4' }))
    assert.deepEqual(
      view.receipt.map((l: Record<string, string>) => [l.item_id, l.price, l.quantity]),
      [
        [f.suit, '39.98', '2'],
        [f.shirt, '10.00', '4']
      ]
    )
    assert.equal(view.total, '49.98')
  })

  it('should keep the unit price copied at first add when the catalogue price changes later', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    const tie = await createItem(t, 'Dry Cleaning', 'Tie', 500)
    ok(await add(o.transaction_id, tie))
    ok(await t.post('/v1/item/update', { item_id: tie, price: 900 }))
    const view = ok(await add(o.transaction_id, tie))
    assert.deepEqual([view.receipt[0].price, view.receipt[0].quantity], ['10.00', '2'])
    const fresh = await createOrder(t, f.owner.id, 'Dry Cleaning')
    assert.equal(ok(await add(fresh.transaction_id, tie)).receipt[0].price, '9.00')
  })

  it('should lower the quantity by one on remove, drop the line at zero, and show the null line when empty', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    ok(await add(o.transaction_id, f.shirt, { quantity: 2 }))
    let view = ok(await remove(o.transaction_id, f.shirt))
    assert.deepEqual([view.receipt[0].quantity, view.receipt[0].price, view.total], ['1', '2.50', '2.50'])
    view = ok(await remove(o.transaction_id, f.shirt))
    assert.deepEqual(view.receipt, EMPTY)
    assert.equal(view.total, '0.00')
    problem(await remove(o.transaction_id, f.shirt), 'item_not_on_receipt')
  })

  it('should answer 404 item_not_found for unknown, removed or non-numeric items, and 409 for an item of another service', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    problem(await add(o.transaction_id, '999999'), 'item_not_found')
    problem(await add(o.transaction_id, 'abc'), 'item_not_found')
    const gone = await createItem(t, 'Dry Cleaning', 'Gone', 100)
    ok(await t.post('/v1/item/remove', { item_id: gone }))
    problem(await add(o.transaction_id, gone), 'item_not_found')
    const mop = await createItem(t, 'Home Cleaning', 'Mop', 100)
    problem(await add(o.transaction_id, mop), 'item_not_in_service')
    problem(await remove(o.transaction_id, 'abc'), 'item_not_on_receipt')
    // An id with control characters names no item: on a removal it too is not on the receipt (D-54).
    problem(await add(o.transaction_id, 'a\u0001'), 'item_not_found')
    problem(await remove(o.transaction_id, 'a\u0001'), 'item_not_on_receipt')
    assert.deepEqual(ok(await t.post(`/v1/transaction/${o.transaction_id}`)).receipt, EMPTY)
  })

  it('should keep a line whose item was removed from the catalogue afterwards', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    const scarf = await createItem(t, 'Dry Cleaning', 'Scarf', 300)
    ok(await add(o.transaction_id, scarf))
    ok(await t.post('/v1/item/remove', { item_id: scarf }))
    const view = ok(await t.post(`/v1/transaction/${o.transaction_id}`))
    assert.deepEqual([view.receipt[0].title, view.total], ['Scarf', '3.00'])
    assert.deepEqual(ok(await remove(o.transaction_id, scarf)).receipt, EMPTY)
  })

  it('should answer 409 transaction_closed for a closed transaction, changing nothing', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    ok(await add(o.transaction_id, f.shirt))
    ok(await t.post('/v1/transaction/update', { transaction_id: o.transaction_id, status: 'closed' }))
    const lines = await countRows(t, 'receipt_lines')
    problem(await add(o.transaction_id, f.shirt), 'transaction_closed')
    problem(await remove(o.transaction_id, f.shirt), 'transaction_closed')
    assert.equal(await countRows(t, 'receipt_lines'), lines)
    assert.equal(ok(await t.post(`/v1/transaction/${o.transaction_id}`)).receipt[0].quantity, '1')
  })

  it("should let a customer change their own open transaction's receipt, and answer 404 for another's", async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    ok(await add(o.transaction_id, f.shirt, {}, f.owner.auth))
    ok(await remove(o.transaction_id, f.shirt, f.owner.auth))
    problem(await add(o.transaction_id, f.shirt, {}, f.other.auth), 'transaction_not_found')
    problem(await remove(o.transaction_id, f.shirt, f.other.auth), 'transaction_not_found')
    problem(await add(o.transaction_id, f.shirt, {}, t.auth.app), 'forbidden')
    problem(await add(o.transaction_id, f.shirt, {}, ''), 'unauthenticated')
    problem(await add('trx_missing', f.shirt), 'transaction_not_found')
  })

  it('should reject bad input with validation_failed naming the field', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    problem(await t.post('/v1/receipt/add', { item_id: f.shirt }), 'validation_failed', ['/transaction_id'])
    problem(await t.post('/v1/receipt/add', { transaction_id: o.transaction_id }), 'validation_failed', ['/item_id'])
    problem(await add(o.transaction_id, true), 'validation_failed', ['/item_id'])
    problem(await add(o.transaction_id, f.shirt, { quantity: 0 }), 'validation_failed', ['/quantity'])
    problem(await add(o.transaction_id, f.shirt, { quantity: 1000 }), 'validation_failed', ['/quantity'])
    problem(await add(o.transaction_id, f.shirt, { quantity: '1000' }), 'validation_failed', ['/quantity'])
    problem(await add(o.transaction_id, f.shirt, { quantity: 2.5 }), 'validation_failed', ['/quantity'])
    problem(await t.post('/v1/receipt/remove', { transaction_id: o.transaction_id, item_id: null }), 'validation_failed', ['/item_id'])
    assert.deepEqual(ok(await t.post(`/v1/transaction/${o.transaction_id}`)).receipt, EMPTY)
  })

  it('should count every one of 50 concurrent adds of one item: quantity 50', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    const responses = await Promise.all(Array.from({ length: 50 }, () => add(o.transaction_id, f.shirt)))
    for (const response of responses) assert.equal(response.statusCode, 200, response.body)
    const view = ok(await t.post(`/v1/transaction/${o.transaction_id}`))
    assert.deepEqual([view.receipt.length, view.receipt[0].quantity, view.total], [1, '50', '125.00'])
  })

  it('should refuse an add that takes a line past 99,999, changing neither the line nor the history', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    for (let i = 0; i < 100; i++) ok(await add(o.transaction_id, f.shirt, { quantity: 999 }))
    const refused = problem(await add(o.transaction_id, f.shirt, { quantity: 999 }), 'validation_failed', ['/quantity'])
    assert.equal(refused.errors[0].message, "would make the line's quantity more than 99999")
    let view = ok(await add(o.transaction_id, f.shirt, { quantity: 99 }))
    assert.deepEqual([view.receipt[0].quantity, view.total], ['99999', '249997.50'])
    problem(await add(o.transaction_id, f.shirt), 'validation_failed', ['/quantity'])
    view = ok(await t.post(`/v1/transaction/${o.transaction_id}`))
    assert.deepEqual([view.receipt.length, view.receipt[0].quantity, view.total], [1, '99999', '249997.50'])
    const history = ok(await t.post(`/v1/transaction/${o.transaction_id}/history`)).history as Array<Record<string, string>>
    assert.deepEqual(
      [history.length, history.filter((h) => h.type === 'receipt_added').length, history.at(-1)!.description],
      [102, 101, 'Added 99 × Shirt']
    )
  })

  // Issue 7: a receipt change answers from the receipt read with the order's lock and what it
  // wrote, with no read after the write. These hold it to the order as read right after.
  it('should answer every add and remove with the order exactly as read right after it', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    const coat = await createItem(t, 'Dry Cleaning', 'Coat', 1250)
    const steps: Array<() => ReturnType<typeof add>> = [
      () => add(o.transaction_id, f.shirt),
      () => add(o.transaction_id, coat, { quantity: 3 }),
      () => add(o.transaction_id, f.suit),
      () => add(o.transaction_id, f.shirt, { quantity: 2 }),
      () => remove(o.transaction_id, coat),
      () => remove(o.transaction_id, f.shirt, f.owner.auth),
      () => remove(o.transaction_id, f.suit),
      () => add(o.transaction_id, f.suit, {}, f.owner.auth),
      () => remove(o.transaction_id, coat),
      () => remove(o.transaction_id, coat),
      () => add(o.transaction_id, coat)
    ]
    for (const [index, step] of steps.entries()) {
      const answer = ok(await step())
      assert.deepEqual(answer, ok(await t.post(`/v1/transaction/${o.transaction_id}`)), `step ${index + 1}`)
    }
    const final = ok(await t.post(`/v1/transaction/${o.transaction_id}`))
    assert.deepEqual(
      final.receipt.map((l: Record<string, string>) => [l.title, l.quantity]),
      [
        ['Shirt', '2'],
        ['Suit', '1'],
        ['Coat', '1']
      ]
    )
  })

  it('should answer concurrent adds of different items each with every line committed before it', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    const items = [f.suit, f.shirt]
    for (let i = 0; i < 6; i++) items.push(await createItem(t, 'Dry Cleaning', `Piece ${i}`, 100 + i))
    const answers = (await Promise.all(items.map((item) => add(o.transaction_id, item)))).map((response) => ok(response))
    // The adds queue on the order's lock: each answer holds the lines of those before it and its own.
    const byLength = answers
      .map((a) => a.receipt.map((l: Record<string, string>) => l.item_id) as string[])
      .sort((a, b) => a.length - b.length)
    assert.deepEqual(
      byLength.map((lines) => lines.length),
      items.map((_, i) => i + 1)
    )
    for (let i = 1; i < byLength.length; i++) assert.deepEqual(byLength[i]!.slice(0, i), byLength[i - 1])
    const last = answers.find((a) => a.receipt.length === items.length)
    assert.deepEqual(last, ok(await t.post(`/v1/transaction/${o.transaction_id}`)))
  })

  it('should record receipt changes in the history', async () => {
    const o = await createOrder(t, f.owner.id, 'Dry Cleaning')
    ok(await add(o.transaction_id, f.suit, { quantity: 2 }))
    ok(await remove(o.transaction_id, f.suit, f.owner.auth))
    const history = ok(await t.post(`/v1/transaction/${o.transaction_id}/history`))
    assert.deepEqual(
      history.history.slice(1).map((h: Record<string, string>) => [h.type, h.position_number, h.description, h.actor, h.by]),
      [
        ['receipt_added', '1', 'Added 2 × Suit', 'staff', 'test staff'],
        ['receipt_removed', '1', 'Removed 1 × Suit', 'customer', '']
      ]
    )
  })
})
