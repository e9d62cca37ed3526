import assert from 'node:assert/strict'
import { it } from 'node:test'
import { describeEachDialect, type TestApp } from '../../helpers/app.js'
import { ok } from '../../helpers/assertions.js'
import { createCustomer, createOrder, createService } from '../../helpers/factories.js'
import { descriptionsOf, getStep, oneTo, readStats, storedPositions } from './support.js'

/** Checks positions are exactly 1..N in the tables and over HTTP, N = step_count; returns the descriptions. */
async function assertContiguous(t: TestApp, name: string, expectedSteps: number): Promise<string[]> {
  const stored = await storedPositions(t, name)
  assert.deepEqual(stored, { positions: oneTo(expectedSteps), stepCount: expectedSteps })
  assert.equal(ok(await getStep(t, name, expectedSteps)).progress_bar.total_steps, expectedSteps)
  assert.equal((await getStep(t, name, expectedSteps + 1)).statusCode, 404)
  const descriptions = await descriptionsOf(t, name)
  assert.equal(descriptions.length, expectedSteps)
  assert.equal(new Set(descriptions).size, expectedSteps, 'every step is a distinct row')
  return descriptions
}

/** Every step's stored order counter equals the number of orders at it (D-44 counters stay exact). */
async function assertCountersExact(t: TestApp): Promise<void> {
  const steps = await t.database.db.selectFrom('service_steps').select(['id', 'order_count']).orderBy('id').execute()
  const orders = await t.database.db.selectFrom('orders').select('step_id').execute()
  const actual = new Map<number, number>()
  for (const order of orders) actual.set(Number(order.step_id), (actual.get(Number(order.step_id)) ?? 0) + 1)
  for (const step of steps) assert.equal(Number(step.order_count), actual.get(Number(step.id)) ?? 0, `step ${step.id}`)
}

describeEachDialect(
  'concurrent step changes (D-42)',
  (t) => {
    it('should leave positions 1..N with no gaps or duplicates after 20 parallel adds and 10 parallel removes', async () => {
      const initial = oneTo(10).map((i) => `Initial ${i}`)
      await createService(
        t,
        'Wash & Fold',
        initial.map((description) => ({ description }))
      )
      const adds = oneTo(20).map((i) => ({
        service_name: 'Wash & Fold',
        description: `Added ${i}`,
        // Half appended, half inserted near the front (always in range: the service never has fewer than 10 steps).
        ...(i % 2 === 0 ? { position_number: String((i % 5) + 1) } : {})
      }))
      const removes = oneTo(10).map((i) => ({
        service_name: 'Wash & Fold',
        ...(i % 2 === 0 ? { position_number: String((i % 4) + 1) } : { position: (i % 3) + 1 })
      }))
      // Adds and removes interleaved, all in flight together: add, remove, add, add, remove, add, …
      const responses = await Promise.all(
        adds.flatMap((body, i) => {
          const sent = [t.post('/v1/service/add', body)]
          if (i % 2 === 0) sent.push(t.post('/v1/service/remove', removes[i / 2]!))
          return sent
        })
      )
      for (const response of responses) assert.equal(response.statusCode, 200, response.body)

      const descriptions = await assertContiguous(t, 'Wash & Fold', 20)
      const known = new Set([...initial, ...adds.map((a) => a.description)])
      for (const description of descriptions) assert.ok(known.has(description), description)
      // Every added step answered a position; appended ones were last when they were added.
      const positions = responses.filter((r) => 'position' in r.json()).map((r) => Number(r.json().position))
      assert.equal(positions.length, 20)
      for (const position of positions) assert.ok(position >= 1 && position <= 30)
    })

    it('should keep orders on their own step while steps are added and removed around them in parallel', async () => {
      await createService(
        t,
        'Home Cleaning',
        oneTo(6).map((i) => ({ description: `Step ${i}` }))
      )
      const customer = await createCustomer(t)
      // Orders at steps 1, 2 and 3 ("Step 1".."Step 3").
      const placed = await Promise.all(oneTo(3).map(() => createOrder(t, customer.id, 'Home Cleaning')))
      for (const [index, order] of placed.entries()) {
        for (let m = 0; m < index; m++)
          ok(await t.post('/v1/transaction/move', { customer_id: customer.id, transaction_id: order.transaction_id }))
      }

      const requests = [
        ...oneTo(8).map((i) => t.post('/v1/service/add', { service_name: 'Home Cleaning', description: `Front ${i}`, position_number: 1 })),
        ...oneTo(6).map((i) => t.post('/v1/service/add', { service_name: 'home cleaning', description: `Back ${i}` })),
        // Removals of the two steps nobody is at ("Step 4"/"Step 5" or later ones), by whatever position they have now.
        ...oneTo(6).map(() => t.post('/v1/service/remove', { service_name: 'Home Cleaning', position_number: '1' })),
        ...oneTo(4).map(() => createOrder(t, customer.id, 'Home Cleaning').then(() => ({ statusCode: 200, body: 'order' })))
      ]
      const responses = await Promise.all(requests)
      let removed = 0
      for (const response of responses.slice(14, 20)) {
        // Position 1 is a "Front" step nobody is at, or "Step 1" with orders: removed or step_in_use, nothing else.
        if (response.statusCode === 200) removed++
        else assert.equal(JSON.parse(response.body).code, 'step_in_use', response.body)
      }
      for (const response of [...responses.slice(0, 14), ...responses.slice(20)]) assert.equal(response.statusCode, 200, response.body)

      const steps = 6 + 14 - removed
      const descriptions = await assertContiguous(t, 'Home Cleaning', steps)
      for (const [index, order] of placed.entries()) {
        const view = ok(await t.post(`/v1/transaction/${order.transaction_id}`))
        assert.equal(view.service.position.position_description, `Step ${index + 1}`)
        assert.equal(view.service.position.position_number, String(descriptions.indexOf(`Step ${index + 1}`) + 1))
        assert.equal(view.service.progress_bar.total_steps, steps)
      }
      const entries = (await readStats(t)).service_stats.find((s) => s.service[0]?.service_name === 'Home Cleaning')!.service
      assert.equal(entries.length, steps)
      assert.equal(entries[0]!.total_orders, 7)
      assert.deepEqual(
        entries.map((e) => e.description),
        descriptions
      )
      assert.equal(
        entries.reduce((sum, e) => sum + (e.position_count as number), 0),
        7
      )
      await assertCountersExact(t)
    })

    it('should keep counters exact with moves racing step inserts and removals', async () => {
      await createService(
        t,
        'Dry Cleaning',
        oneTo(4).map((i) => ({ description: `Stage ${i}` }))
      )
      const customer = await createCustomer(t)
      const orders = await Promise.all(oneTo(5).map(() => createOrder(t, customer.id, 'Dry Cleaning')))
      const move = (id: string) => t.post('/v1/transaction/move', { customer_id: customer.id, transaction_id: id })
      const responses = await Promise.all([
        ...orders.map((o) => move(o.transaction_id)),
        ...orders.map((o) => move(o.transaction_id)),
        ...oneTo(5).map((i) =>
          t.post('/v1/service/add', { service_name: 'Dry Cleaning', description: `Extra ${i}`, position_number: '2' })
        ),
        ...oneTo(3).map(() => t.post('/v1/service/remove', { service_name: 'Dry Cleaning', position_number: '2' }))
      ])
      let removed = 0
      responses.forEach((response, index) => {
        if (index >= 15) {
          if (response.statusCode === 200) removed++
          else assert.equal(JSON.parse(response.body).code, 'step_in_use', response.body)
        } else {
          assert.equal(response.statusCode, 200, response.body)
        }
      })
      const steps = 4 + 5 - removed
      const descriptions = await assertContiguous(t, 'Dry Cleaning', steps)
      for (const order of orders) {
        const view = ok(await t.post(`/v1/transaction/${order.transaction_id}`))
        const at = view.service.position.position_description as string
        assert.equal(view.service.position.position_number, String(descriptions.indexOf(at) + 1))
      }
      await assertCountersExact(t)
    })
  },
  // Enough connections that no request waits for one while others wait for the service's row lock.
  { DATABASE_POOL_MAX: '40' }
)
