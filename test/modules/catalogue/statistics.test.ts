import assert from 'node:assert/strict'
import { it } from 'node:test'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { CompiledQuery, sql } from 'kysely'
import { openDatabase } from '../../../src/db/database.js'
import { type CompiledStatement, type Reader, StatementRegistry } from '../../../src/db/statement.js'
import { ServicesService } from '../../../src/modules/catalogue/services.service.js'
import { StepTexts } from '../../../src/modules/catalogue/step-texts.js'
import { describeEachDialect, type TestApp } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { createCustomer, createOrder, createService } from '../../helpers/factories.js'

type Entry = Record<string, unknown>

const FIRST_KEYS = ['service_name', 'image_title', 'shade', 'position_number', 'description', 'position_count', 'total_orders']
const LATER_KEYS = ['shade', 'position_number', 'description', 'position_count']

async function stats(t: TestApp): Promise<{ service_stats: { service: Entry[] }[] }> {
  const response = await t.post('/v1/service/stats')
  const body = ok(response)
  assert.deepEqual(Object.keys(body), ['service_stats'])
  // Key order on the wire, per entry: 7 fields on a service's first entry, 4 on the rest.
  const parsed = JSON.parse(response.body) as { service_stats: { service: Entry[] }[] }
  for (const element of parsed.service_stats) {
    assert.deepEqual(Object.keys(element), ['service'])
    for (const [index, entry] of element.service.entries()) assert.deepEqual(Object.keys(entry), index === 0 ? FIRST_KEYS : LATER_KEYS)
  }
  return body
}

/** Per service name: the position_count of each step, and total_orders. */
async function counts(t: TestApp): Promise<Record<string, { steps: number[]; total: number }>> {
  const result: Record<string, { steps: number[]; total: number }> = {}
  for (const { service } of (await stats(t)).service_stats) {
    const steps = service.map((e) => e.position_count as number)
    const total = service[0]!.total_orders as number
    // D-44: the counts of a service add up to its total_orders.
    assert.equal(
      steps.reduce((a, b) => a + b, 0),
      total
    )
    result[service[0]!.service_name as string] = { steps, total }
  }
  return result
}

describeEachDialect('service statistics (spec Get service statistics, D-44)', (t) => {
  it('should answer an empty list when there are no services', async () => {
    assert.deepEqual(await stats(t), { service_stats: [] })
  })

  it('should answer every service in creation order, entries in step order, shade d, l, d, … from step 1', async () => {
    await createService(t, 'Wash & Fold', [
      { description: 'Received' },
      { description: 'Washing' },
      { description: 'Drying' },
      { description: 'Folding' },
      { description: 'Delivered' }
    ])
    await createService(t, 'Dry Cleaning', [{ description: 'Tagged' }, { description: 'Cleaned' }])
    await createService(t, 'Alterations', [{ description: 'Measured' }])
    assert.deepEqual(await stats(t), {
      service_stats: [
        {
          service: [
            {
              service_name: 'Wash & Fold',
              image_title: 'wash_fold',
              shade: 'd',
              position_number: '1',
              description: 'Received',
              position_count: 0,
              total_orders: 0
            },
            { shade: 'l', position_number: '2', description: 'Washing', position_count: 0 },
            { shade: 'd', position_number: '3', description: 'Drying', position_count: 0 },
            { shade: 'l', position_number: '4', description: 'Folding', position_count: 0 },
            { shade: 'd', position_number: '5', description: 'Delivered', position_count: 0 }
          ]
        },
        {
          service: [
            {
              service_name: 'Dry Cleaning',
              image_title: 'dry_cleaning',
              shade: 'd',
              position_number: '1',
              description: 'Tagged',
              position_count: 0,
              total_orders: 0
            },
            { shade: 'l', position_number: '2', description: 'Cleaned', position_count: 0 }
          ]
        },
        {
          service: [
            {
              service_name: 'Alterations',
              image_title: 'alterations',
              shade: 'd',
              position_number: '1',
              description: 'Measured',
              position_count: 0,
              total_orders: 0
            }
          ]
        }
      ]
    })
  })

  it('should keep shades alternating by position after steps are inserted and removed', async () => {
    ok(await t.post('/v1/service/add', { service_name: 'Dry Cleaning', description: 'Inspected', position_number: '1' }))
    ok(await t.post('/v1/service/remove', { service_name: 'Wash & Fold', position_number: '2' }))
    const body = await stats(t)
    assert.deepEqual(
      body.service_stats.map((s) => s.service.map((e) => `${e.position_number}${e.shade}:${e.description}`)),
      [['1d:Received', '2l:Drying', '3d:Folding', '4l:Delivered'], ['1d:Inspected', '2l:Tagged', '3d:Cleaned'], ['1d:Measured']]
    )
  })

  it('should count orders per step as they are created, moved, closed and moved to another service', async () => {
    const ada = await createCustomer(t)
    const bob = await createCustomer(t)
    const move = async (customerId: string, transactionId: string) =>
      ok(await t.post('/v1/transaction/move', { customer_id: customerId, transaction_id: transactionId }))

    const a = await createOrder(t, ada.id, 'Wash & Fold')
    const b = await createOrder(t, bob.id, 'wash & fold')
    const c = await createOrder(t, ada.id, 'Dry Cleaning')
    assert.deepEqual(await counts(t), {
      'Wash & Fold': { steps: [2, 0, 0, 0], total: 2 },
      'Dry Cleaning': { steps: [1, 0, 0], total: 1 },
      Alterations: { steps: [0], total: 0 }
    })

    await move(ada.id, a.transaction_id)
    await move(ada.id, a.transaction_id)
    await move(ada.id, c.transaction_id)
    assert.deepEqual(await counts(t), {
      'Wash & Fold': { steps: [1, 0, 1, 0], total: 2 },
      'Dry Cleaning': { steps: [0, 1, 0], total: 1 },
      Alterations: { steps: [0], total: 0 }
    })

    // Closed orders still count at their step, whatever their status (D-44).
    ok(await t.post('/v1/transaction/update', { transaction_id: b.transaction_id, status: 'closed' }))
    await move(ada.id, a.transaction_id)
    await move(ada.id, a.transaction_id) // at the last step: closes, stays there
    assert.equal(ok(await t.post(`/v1/transaction/${a.transaction_id}`)).status, 'closed')
    assert.deepEqual(await counts(t), {
      'Wash & Fold': { steps: [1, 0, 0, 1], total: 2 },
      'Dry Cleaning': { steps: [0, 1, 0], total: 1 },
      Alterations: { steps: [0], total: 0 }
    })

    // Another service: the order leaves its step and enters step 1 of the new service (D-53).
    ok(await t.post('/v1/transaction/update', { transaction_id: c.transaction_id, service_name: 'Alterations' }))
    ok(await t.post('/v1/transaction/update', { transaction_id: b.transaction_id, service_name: 'DRY CLEANING' }))
    assert.deepEqual(await counts(t), {
      'Wash & Fold': { steps: [0, 0, 0, 1], total: 1 },
      'Dry Cleaning': { steps: [1, 0, 0], total: 1 },
      Alterations: { steps: [1], total: 1 }
    })
  })

  it('should not change for rejected requests', async () => {
    const before = await stats(t)
    problem(await t.post('/v1/service/create', { service_name: 'wash & fold', description: 'x' }), 'service_exists')
    problem(await t.post('/v1/service/add', { service_name: 'Wash & Fold', description: 'x', position_number: '9' }), 'validation_failed', [
      '/position_number'
    ])
    problem(await t.post('/v1/service/remove', { service_name: 'Wash & Fold', position_number: '4' }), 'step_in_use')
    problem(await t.post('/v1/service/remove', { service_name: 'Alterations', position_number: '1' }), 'last_step')
    problem(await t.post('/v1/service/create', { service_name: 'New', description: 'x', events: ['mail'] }), 'validation_failed', [
      '/events/0'
    ])
    assert.deepEqual(await stats(t), before)
  })

  it('should be for staff and admin keys only: app key and customer 403, no credentials 401', async () => {
    const customer = await createCustomer(t, { password: 'correct horse battery' })
    problem(await t.post('/v1/service/stats', undefined, { auth: t.auth.app }), 'forbidden')
    problem(await t.post('/v1/service/stats', undefined, { auth: customer.auth }), 'forbidden')
    problem(await t.post('/v1/service/stats', undefined, { auth: null }), 'unauthenticated')
    assert.equal(ok(await t.post('/v1/service/stats', undefined, { auth: t.auth.admin })).service_stats.length, 3)
  })
})

describeEachDialect('service statistics query count (D-44, performance)', (t) => {
  /** The statements one statistics request runs, apart from the credential lookup. */
  async function statsQueries(): Promise<{ queries: string[]; services: number }> {
    const { result, queries } = await t.countQueries(() => t.post('/v1/service/stats'))
    const body = ok(result)
    return { queries: queries.filter((q) => !/\bapi_keys\b/.test(q)), services: body.service_stats.length }
  }

  it('should read statistics in one query of counters for 1 service and for 30 services with orders', async () => {
    // SQLite: an answer is kept until the database changes (data_version); PostgreSQL reads every time.
    const memo = t.database.dataVersion !== null
    const customer = await createCustomer(t)
    await createService(t, 'Service 1', [{ description: 'A' }, { description: 'B' }])
    // Right after the catalogue changed, the step texts are loaded once more: two queries.
    const first = await statsQueries()
    assert.equal(first.queries.length, 2, first.queries.join('\n'))
    assert.equal((await statsQueries()).queries.length, memo ? 0 : 1)
    // An order changes only counters: one query of counters, the texts are known.
    await createOrder(t, customer.id, 'Service 1')
    const one = await statsQueries()
    assert.equal(one.services, 1)
    assert.equal(one.queries.length, 1, one.queries.join('\n'))
    assert.doesNotMatch(one.queries[0]!, /\bdescription\b|\borders\b/)

    for (let i = 2; i <= 30; i++) {
      await createService(t, `Service ${i}`, [{ description: 'A' }, { description: 'B' }, { description: 'C' }])
    }
    for (let i = 1; i <= 30; i += 3) await createOrder(t, customer.id, `Service ${i}`)
    assert.equal((await statsQueries()).queries.length, 2)
    await createOrder(t, customer.id, 'Service 30')
    const thirty = await statsQueries()
    assert.equal(thirty.services, 30)
    assert.deepEqual(thirty.queries, one.queries)
    const body = ok(await t.post('/v1/service/stats'))
    assert.equal(
      body.service_stats.reduce((sum: number, s: { service: Entry[] }) => sum + (s.service[0]!.total_orders as number), 0),
      12
    )
  })

  it('should answer the database as it is now when another connection (another process) changed it', async () => {
    await createService(t, 'Elsewhere', [{ description: 'Only' }])
    const count = async () => {
      const body = ok(await t.post('/v1/service/stats'))
      const service = body.service_stats.find((s: { service: Entry[] }) => s.service[0]!.service_name === 'Elsewhere')
      return service.service[0]!.position_count as number
    }
    assert.equal(await count(), 0)
    assert.equal(await count(), 0)
    // A second connection of its own, as the CLI or another process has: not through this app.
    const other = openDatabase(t.config)
    try {
      // A request sent after another process committed arrives in a later turn of the event loop;
      // within one turn the reader keeps one snapshot (SqliteReadSnapshot).
      await other.db
        .updateTable('service_steps')
        .set((eb) => ({ order_count: eb('order_count', '+', 7) }))
        .where('description', '=', 'Only')
        .execute()
      await nextTurn()
      assert.equal(await count(), 7)
      await other.db
        .updateTable('service_steps')
        .set((eb) => ({ order_count: eb('order_count', '-', 7) }))
        .where('description', '=', 'Only')
        .execute()
      await nextTurn()
      assert.equal(await count(), 0)
    } finally {
      await other.close()
    }
  })

  it('should not fail when a step it counted is removed before its texts are read (D-44)', async () => {
    await createService(t, 'Vanishing', [{ description: 'Stays' }, { description: 'Goes' }])
    ok(await t.post('/v1/service/stats'))
    // The counters as read just before the second step is removed: one step id the texts no longer have.
    const { rows: counters } = await sql<{
      step_id: number
      service_id: number
      position: number
      order_count: number
      texts_version: number
    }>`
      select id as step_id, service_id, position, order_count, texts_version from service_steps order by service_id, position
    `.execute(t.database.db)
    ok(await t.post('/v1/service/remove', { service_name: 'Vanishing', position_number: 2 }))
    const rows = await new StepTexts(t.database).withTexts(counters)
    // Read again, counters and texts in one statement: the removed step is in neither.
    const vanishing = rows.filter((row) => row.serviceName === 'Vanishing')
    assert.deepEqual(
      vanishing.map((row) => [row.position, row.description]),
      [[1, 'Stays']]
    )
    assert.equal(rows.length, counters.length - 1)
    const body = ok(await t.post('/v1/service/stats'))
    const entry = body.service_stats.find((s: { service: Entry[] }) => s.service[0]!.service_name === 'Vanishing')
    assert.deepEqual(
      entry.service.map((e: Entry) => e.description),
      ['Stays']
    )
  })

  it('should not keep an answer built from counters newer than the ones it is kept under (issue 7)', async () => {
    await createService(t, 'Racing', [{ description: 'First' }, { description: 'Second' }])
    const bump = (by: number) =>
      t.database.db
        .updateTable('service_steps')
        .set((eb) => ({ order_count: eb('order_count', '+', by) }))
        .where('description', '=', 'First')
        .execute()
    // Another process commits between this process's read of the counters and its read of the
    // texts: a service fresh in this process knows no step yet, so it reads counters and texts
    // again together, and those counters are newer than the ones it read first.
    let between: (() => Promise<unknown>) | undefined = () => bump(5)
    // Reads through Kysely on the writer: its statements see every commit, as a new turn's snapshot does.
    const reader: Reader = {
      rows: async <R>(statement: CompiledStatement, values: readonly unknown[]) => {
        const rows = (await t.database.db.executeQuery<R>(CompiledQuery.raw(statement.sql, [...values]))).rows as R[]
        const commit = between
        between = undefined
        if (commit !== undefined) await commit()
        return rows
      }
    }
    const statements = new StatementRegistry(t.database.db, reader)
    const racingDatabase = { ...t.database, prepare: statements.prepare.bind(statements) }
    const service = new ServicesService(racingDatabase, undefined as never, undefined as never)
    const racing = async () => {
      const body = await service.stats()
      return body.service_stats.find((s) => s.service[0]!.service_name === 'Racing')!.service.map((e) => e.position_count)
    }
    assert.deepEqual(await racing(), [5, 0])
    // Back to the counters first read: an answer kept under their text would say 5 again.
    await bump(-5)
    await nextTurn()
    assert.deepEqual(await racing(), [0, 0])
  })
})
