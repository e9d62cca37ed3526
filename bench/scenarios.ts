import fs from 'node:fs'
import path from 'node:path'
import { sql } from 'kysely'
import type { Database } from '../src/db/database.js'
import { rng, type SeedResult } from './seed.js'

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
  /**
   * Which server answers it: the API, the bare baseline, the hand-prepared reference
   * (bench/reference.ts), or the API built from another revision (`--compare`).
   */
  target: 'api' | 'baseline' | 'reference' | 'compare'
  /** The requests, cycled in order; write scenarios continue where the previous run stopped. */
  requests: BenchRequest[]
  /** Count responses per status (409s apart from errors); costs the load generator a little. */
  countStatuses: boolean
  /** Statuses that are expected outcomes rather than errors (409 when a move finds an order closed). */
  expectedStatuses?: number[]
  /**
   * Customer credentials: one request is sent alone before the warm-up, so a verification the
   * server's 60 s credential cache (D-13) needs happens once, not in all connections at once.
   * The stampede that happens otherwise is measured on its own (`--expiry`).
   */
  prime?: boolean
  /**
   * Puts the data the requests use back as seeded, run before each round (and the profile) with
   * the cursor back at 0: moves close their orders, and a fast server would run out of open ones
   * within a round and go on measuring cheap 409s.
   */
  rewind?: (db: Database) => Promise<void>
}

/** Every scenario of issue 7, in the order the rounds run them. */
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

function json(value: unknown): string {
  // Tabs and newlines never appear in JSON.stringify output outside strings, and are escaped inside.
  return JSON.stringify(value)
}

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

  // Not a target of its own: what this machine allows for the same read with none of the API's
  // platform, so the report can say how much of get-transaction's gap is the platform's.
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
 * Moves in waves: every open order of the pool once, then again every order that still has a
 * move left, and so on. Sent in order (the runs continue where the last stopped), each request
 * moves an order that is still open, until the pool is spent: an order at step p of N can take
 * N - p moves forward and one more that closes it. Past that, 409 `transaction_closed`.
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
 * (D-44: orders at the step), so each round has the same moves to make. Their history and outbox
 * rows stay: the tables grow as they do under any write load.
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
  await db.unitOfWork.run(async (trx) => {
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

/**
 * `--compare REV`: the same scenario sent to the API built from REV. Run next to the original in
 * every round (after it, or before it every other round: `twinsFirst`), so that both see the same
 * state of the machine; not a target of its own.
 */
export function compareTwin(scenario: Scenario, revision: string): Scenario {
  return {
    ...scenario,
    name: `${scenario.name}@${revision}`,
    title: `${scenario.title}, built from ${revision}`,
    kind: 'compare',
    target: 'compare'
  }
}

/** A round's runs with each `--compare` twin moved before its original (every other round). */
export function twinsFirst<T extends { scenario: Pick<Scenario, 'kind'> }>(targets: readonly T[]): T[] {
  const ordered = [...targets]
  for (let i = 1; i < ordered.length; i++) {
    if (ordered[i]!.scenario.kind === 'compare') [ordered[i - 1], ordered[i]] = [ordered[i]!, ordered[i - 1]!]
  }
  return ordered
}
