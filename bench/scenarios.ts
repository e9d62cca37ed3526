import fs from 'node:fs'
import path from 'node:path'
import { sql } from 'kysely'
import type { Database } from '../src/db/database.js'
import type { SeedResult } from './seed.js'
import { rng } from './seed-data.js'

/** One HTTP request of a scenario, as bench/lua/cycle.lua reads it. */
export interface BenchRequest {
  method: 'POST'
  path: string
  /** The whole `Authorization` value, or '' for none. */
  authorization: string
  /** JSON text, or '' for no body. */
  body: string
}

export type ScenarioKind = 'baseline' | 'reference' | 'read' | 'write' | 'compare'

/** A load scenario: which requests it cycles through and what the targets compare it with. */
export interface Scenario {
  name: string
  title: string
  kind: ScenarioKind
  /** The API, the bare baseline, the hand-prepared reference, or the API built from `--compare REV`. */
  target: 'api' | 'baseline' | 'reference' | 'compare'
  /** The requests, cycled in order; write scenarios continue where the previous run stopped. */
  requests: BenchRequest[]
  /** Count responses per status (409s apart from errors); costs the load generator a little. */
  countStatuses: boolean
  /** Statuses that are expected outcomes rather than errors (409 when a move finds an order closed). */
  expectedStatuses?: number[]
  /** Customer credentials (D-13): one request alone before the warm-up verifies them once, not in every connection. */
  prime?: boolean
  /** Puts the data back as seeded before each run: moves close their orders, and a fast server would go on measuring cheap 409s. */
  rewind?: (db: Database) => Promise<void>
}

/** Every scenario, in the order the rounds run them. */
export const SCENARIO_NAMES = [
  'baseline',
  'get-transaction',
  'reference-transaction',
  'get-customer',
  'search-customers',
  'get-items',
  'service-stats',
  'add-to-receipt',
  'move-transaction',
  'create-transaction'
] as const

export type ScenarioName = (typeof SCENARIO_NAMES)[number]

// The request file is tab-separated: JSON.stringify never writes a raw tab or newline.
const json = (value: unknown) => JSON.stringify(value)

/** Search queries people type: 1-4 letter prefixes of first and last names, and "first last" pairs. */
export function searchQueries(names: SeedResult['names'], count = 400): string[] {
  const random = rng(11)
  const pick = (list: string[]) => list[Math.floor(random() * list.length)]!
  const queries: string[] = []
  for (let i = 0; i < count; i++) {
    const shape = i % 5
    const first = pick(names.first).toLowerCase()
    const last = pick(names.last).toLowerCase()
    if (shape === 0) queries.push(last.slice(0, 3))
    else if (shape === 1) queries.push(first.slice(0, 2))
    else if (shape === 2) queries.push(last.slice(0, 5))
    else if (shape === 3) queries.push(`${first.slice(0, 3)} ${last.slice(0, 2)}`)
    else queries.push(first)
  }
  return queries
}

/** The scenarios over a seeded data set. */
export function buildScenarios(data: SeedResult): Map<ScenarioName, Scenario> {
  const staff = data.staff.authorization
  const random = rng(3)
  const scenarios = new Map<ScenarioName, Scenario>()
  const add = (name: ScenarioName, scenario: Omit<Scenario, 'name'>) => scenarios.set(name, { name, ...scenario })

  add('baseline', {
    title: 'baseline: bare Fastify POST /v1/ping',
    kind: 'baseline',
    target: 'baseline',
    requests: [{ method: 'POST', path: '/v1/ping', authorization: '', body: '' }],
    countStatuses: false
  })

  add('get-transaction', {
    title: 'get transaction (full view, customer Basic credentials)',
    kind: 'read',
    target: 'api',
    requests: data.customerTransactions.map((id) => ({
      method: 'POST',
      path: `/v1/transaction/${id}`,
      authorization: data.customer.authorization,
      body: ''
    })),
    countStatuses: false,
    prime: true
  })

  // No target of its own: the same read with none of the API's platform, for what the platform costs.
  add('reference-transaction', {
    title: 'reference: the full view by hand-prepared SQL in a bare Fastify, no credentials',
    kind: 'reference',
    target: 'reference',
    requests: data.customerTransactions.map((id) => ({ method: 'POST', path: `/v1/transaction/${id}`, authorization: '', body: '' })),
    countStatuses: false
  })

  add('get-customer', {
    title: 'get customer (staff key)',
    kind: 'read',
    target: 'api',
    requests: data.customerSample.map((id) => ({ method: 'POST', path: `/v1/customer/${id}`, authorization: staff, body: '' })),
    countStatuses: false
  })

  add('search-customers', {
    title: 'search customers (staff key, name prefixes)',
    kind: 'read',
    target: 'api',
    requests: searchQueries(data.names).map((query) => ({
      method: 'POST',
      path: '/v1/customer/search',
      authorization: staff,
      body: json({ query })
    })),
    countStatuses: false
  })

  add('get-items', {
    title: 'get items of a service (staff key)',
    kind: 'read',
    target: 'api',
    requests: data.services.map((service) => ({
      method: 'POST',
      path: `/v1/service/${encodeURIComponent(service.name)}`,
      authorization: staff,
      body: ''
    })),
    countStatuses: false
  })

  add('service-stats', {
    title: 'service statistics (staff key)',
    kind: 'read',
    target: 'api',
    requests: [{ method: 'POST', path: '/v1/service/stats', authorization: staff, body: '' }],
    countStatuses: false
  })

  // Writes: bodies vary, so each request changes a different row.
  add('add-to-receipt', {
    title: "add to receipt (staff key, random item of the order's service)",
    kind: 'write',
    target: 'api',
    requests: data.addPool.map((order) => {
      const items = data.services[order.serviceIndex]!.itemIds
      const itemId = items[Math.floor(random() * items.length)]!
      return {
        method: 'POST',
        path: '/v1/receipt/add',
        authorization: staff,
        body: json({ transaction_id: order.transactionId, item_id: String(itemId) })
      }
    }),
    countStatuses: true
  })

  add('move-transaction', {
    title: 'move transaction (staff key, one step forward)',
    kind: 'write',
    target: 'api',
    requests: moveRequests(data, staff),
    countStatuses: true,
    expectedStatuses: [409],
    rewind: (db) => rewindMovePool(db, data)
  })

  const pickupBase = Math.floor(Date.UTC(2026, 2, 1) / 1000)
  add('create-transaction', {
    title: 'create transaction (staff key)',
    kind: 'write',
    target: 'api',
    requests: Array.from({ length: 5000 }, (_, i) => {
      const pickup = pickupBase + Math.floor(random() * 60) * 86_400 + 9 * 3600
      return {
        method: 'POST' as const,
        path: '/v1/transaction/create',
        authorization: staff,
        body: json({
          customer_id: data.customerSample[i % data.customerSample.length],
          service_name: data.services[i % data.services.length]!.name,
          pickup_timestamp: pickup,
          delivery_timestamp: pickup + 2 * 86_400,
          notes: i % 3 === 0 ? 'Ring the bell twice' : ''
        })
      }
    }),
    countStatuses: true
  })

  return scenarios
}

/**
 * Moves in waves: every order of the pool once, then every order with a move left, and so on, so
 * each request finds its order open until the pool is spent (an order at step p of N takes N - p
 * moves and one that closes it); past that, 409 `transaction_closed`.
 */
function moveRequests(data: SeedResult, authorization: string): BenchRequest[] {
  const steps = data.sizes.stepsPerService
  const requests: BenchRequest[] = []
  for (let wave = 1; wave <= steps; wave++) {
    for (const order of data.movePool) {
      if (steps + 1 - order.position >= wave) {
        requests.push({
          method: 'POST',
          path: '/v1/transaction/move',
          authorization,
          body: json({ customer_id: order.customerId, transaction_id: order.transactionId })
        })
      }
    }
  }
  return requests
}

/**
 * The move pool's orders back at their seeded steps, open, and every step's order_count recounted
 * (D-44). Their history and outbox rows stay: the tables grow as under any write load.
 */
async function rewindMovePool(db: Database, data: SeedResult): Promise<void> {
  const steps = await db.db
    .selectFrom('service_steps as st')
    .innerJoin('services as s', 's.id', 'st.service_id')
    .select(['s.name', 'st.position', 'st.id'])
    .execute()
  const stepIds = new Map(steps.map((row) => [`${row.name}\u0000${row.position}`, Number(row.id)]))
  const byStep = new Map<number, string[]>()
  for (const order of data.movePool) {
    const stepId = stepIds.get(`${data.services[order.serviceIndex]!.name}\u0000${order.position}`)
    if (stepId === undefined) throw new Error(`no step ${order.position} in service ${order.serviceIndex}`)
    const ids = byStep.get(stepId) ?? []
    ids.push(order.transactionId)
    byStep.set(stepId, ids)
  }
  await db.db.transaction().execute(async (trx) => {
    for (const [stepId, ids] of byStep) {
      for (let i = 0; i < ids.length; i += 500) {
        await trx
          .updateTable('orders')
          .set({ step_id: stepId, status: 'open' })
          .where('public_id', 'in', ids.slice(i, i + 500))
          .execute()
      }
    }
    await trx
      .updateTable('service_steps')
      .set({ order_count: sql<number>`(select count(*) from orders where orders.step_id = service_steps.id)` })
      .execute()
  })
}

/** Writes a scenario's requests where cycle.lua reads them; returns the file. */
export function writeRequestFile(dir: string, scenario: Scenario): string {
  fs.mkdirSync(dir, { recursive: true })
  const file = path.join(dir, `${scenario.name}.tsv`)
  const lines = scenario.requests.map((r) => [r.method, r.path, r.authorization, r.body].join('\t'))
  fs.writeFileSync(file, `${lines.join('\n')}\n`)
  return file
}
