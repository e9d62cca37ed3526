import assert from 'node:assert/strict'
import { it } from 'node:test'
import { describeEachDialect, type TestApp } from '../../helpers/app.js'
import { ok } from '../../helpers/assertions.js'
import { createCustomer, createOrder, createService } from '../../helpers/factories.js'

const MINUTE = 60_000

/** Where the board shows an order: its step's position and when it entered it; undefined when it is not on the board. */
async function cardOf(t: TestApp, service: string, id: string): Promise<{ position: string; entered_at: string } | undefined> {
  const board = ok(await t.post('/v1/transaction/board', { service_name: service }))
  for (const step of board.steps) {
    const card = step.orders.find((c: { transaction_id: string }) => c.transaction_id === id)
    if (card !== undefined) return { position: step.position_number, entered_at: card.entered_at }
  }
  return undefined
}

describeEachDialect('when an order entered its step: every change of step, and nothing else (D-48)', (t) => {
  it('should start the visit on create, move and service change; not on closing, reopening or other updates', async () => {
    await createService(t, 'Entry One', [{ description: 'A' }, { description: 'B' }])
    await createService(t, 'Entry Two', [{ description: 'X' }, { description: 'Y' }])
    const customer = await createCustomer(t)
    t.clock.freeze()
    try {
      const at = (ms: number) => new Date(ms).toISOString()
      const created = t.clock.now()
      const { transaction_id: id } = await createOrder(t, customer.id, 'Entry One')
      assert.deepEqual(await cardOf(t, 'Entry One', id), { position: '1', entered_at: at(created) })

      t.clock.advance(3 * MINUTE)
      ok(await t.post('/v1/transaction/update', { transaction_id: id, note: 'Changed', pickup_timestamp: 1_793_344_800 }))
      // The same service, named in another case: no change of step.
      ok(await t.post('/v1/transaction/update', { transaction_id: id, service_name: 'ENTRY ONE' }))
      assert.deepEqual(await cardOf(t, 'Entry One', id), { position: '1', entered_at: at(created) })

      t.clock.advance(MINUTE)
      const moved = t.clock.now()
      ok(await t.post('/v1/transaction/move', { customer_id: customer.id, transaction_id: id }))
      assert.deepEqual(await cardOf(t, 'Entry One', id), { position: '2', entered_at: at(moved) })

      // Closing at the last step keeps the order there and its visit as it was.
      t.clock.advance(MINUTE)
      ok(await t.post('/v1/transaction/move', { customer_id: customer.id, transaction_id: id }))
      assert.equal(await cardOf(t, 'Entry One', id), undefined)
      t.clock.advance(MINUTE)
      ok(await t.post('/v1/transaction/update', { transaction_id: id, status: 'open' }))
      assert.deepEqual(await cardOf(t, 'Entry One', id), { position: '2', entered_at: at(moved) })
      ok(await t.post('/v1/transaction/update', { transaction_id: id, status: 'closed' }))
      ok(await t.post('/v1/transaction/update', { transaction_id: id, status: 'open' }))
      assert.deepEqual(await cardOf(t, 'Entry One', id), { position: '2', entered_at: at(moved) })

      // Another service: its step 1, entered now.
      t.clock.advance(MINUTE)
      const switched = t.clock.now()
      ok(await t.post('/v1/transaction/update', { transaction_id: id, service_name: 'Entry Two', note: 'Moved over' }))
      assert.equal(await cardOf(t, 'Entry One', id), undefined)
      assert.deepEqual(await cardOf(t, 'Entry Two', id), { position: '1', entered_at: at(switched) })

      // Editing its step and inserting one before it leave it too (D-42, D-47).
      t.clock.advance(MINUTE)
      ok(await t.post('/v1/catalogue/step/update', { service_name: 'Entry Two', position_number: 1, description: 'X2' }))
      ok(await t.post('/v1/service/add', { service_name: 'Entry Two', description: 'W', position_number: 1 }))
      assert.deepEqual(await cardOf(t, 'Entry Two', id), { position: '2', entered_at: at(switched) })
    } finally {
      t.clock.thaw()
    }
  })
})
