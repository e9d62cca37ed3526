import type { Insertable } from 'kysely'
import type { Database } from '../src/db/database.js'
import type { DB } from '../src/db/schema.js'
import { BulkInserter, DAY, idOf, type SeedSizes, STEP_DESCRIPTIONS } from './seed-data.js'

/** An open transaction a write scenario may change. */
export interface PoolOrder {
  transactionId: string
  customerId: string
  serviceIndex: number
  position: number
}

/** What the orders are made of: the customers and the catalogue seeded before them. */
export interface OrderInputs {
  customerIds: string[]
  services: { name: string; itemIds: number[] }[]
  stepIds: number[][]
  itemPrices: Map<number, number>
}

export interface OrderPools {
  /** The bench customer's own transactions, which its credentials may read. */
  customerTransactions: string[]
  /** Open transactions for add-to-receipt, disjoint from movePool. */
  addPool: PoolOrder[]
  movePool: PoolOrder[]
}

type HistoryEntry = Pick<Insertable<DB['order_history']>, 'at' | 'type' | 'position' | 'description'>

const BENCH_CUSTOMER_ORDERS = 20
const CHUNK = 50_000

/**
 * Transactions with receipt lines and history, a third of them closed at the last step, in chunks of
 * one database transaction each. `random` continues the seed's sequence: the same sizes always give
 * the same data.
 */
export async function seedOrders(
  database: Database,
  sizes: SeedSizes,
  random: () => number,
  now: number,
  inputs: OrderInputs,
  progress: (done: number, counts: Record<string, number>) => void
): Promise<OrderPools> {
  const { customerIds, services, stepIds, itemPrices } = inputs
  const last = sizes.stepsPerService
  const pools: OrderPools = { customerTransactions: [], addPool: [], movePool: [] }
  let lineId = 0
  let historyId = 0
  for (let from = 0; from < sizes.transactions; from += CHUNK) {
    const to = Math.min(sizes.transactions, from + CHUNK)
    await database.db.transaction().execute(async (trx) => {
      const bulk = new BulkInserter(trx, database.dialect)
      for (let i = from; i < to; i++) {
        const id = i + 1
        const benchOrder = i < BENCH_CUSTOMER_ORDERS
        const customerIndex = benchOrder ? 0 : Math.floor(random() * sizes.customers)
        const customerId = customerIds[customerIndex]!
        const s = Math.floor(random() * sizes.services)
        const closed = !benchOrder && random() < 0.35
        const position = closed ? last : 1 + Math.floor(random() * last)
        const publicId = idOf('trx', random)
        const createdAt = now - Math.floor(random() * 365 * DAY) * 1000
        const pickup = Math.floor(createdAt / 1000) + DAY + Math.floor(random() * 12) * 3600
        await bulk.add('orders', {
          id,
          public_id: publicId,
          // Unique 8-digit codes: a stride coprime to 90,000,000 visits each code once.
          code: 10_000_000 + ((i * 7919 + 12_345) % 90_000_000),
          customer_id: customerId,
          service_id: s + 1,
          step_id: stepIds[s]![position - 1]!,
          status: closed ? 'closed' : 'open',
          pickup_at: pickup,
          delivery_at: pickup + 2 * DAY,
          note: random() < 0.3 ? 'Leave at the front desk' : '',
          created_at: createdAt,
          updated_at: createdAt,
          // Entered its step when the history below says it was moved there (D-48).
          step_entered_at: position > 1 ? createdAt + DAY * 1000 : createdAt
        })
        // Receipt lines: average - 2 to average + 2 distinct items of the service.
        const items = services[s]!.itemIds
        const spread = sizes.linesPerTransaction >= 2 ? 2 : 0
        const lineCount = Math.max(0, sizes.linesPerTransaction - spread + Math.floor(random() * (2 * spread + 1)))
        const start = Math.floor(random() * items.length)
        for (let k = 0; k < lineCount && k < items.length; k++) {
          const itemId = items[(start + k * 7) % items.length]!
          await bulk.add('receipt_lines', {
            id: ++lineId,
            order_id: id,
            item_id: itemId,
            unit_price_cents: itemPrices.get(itemId)!,
            quantity: 1 + Math.floor(random() * 3),
            created_at: createdAt
          })
        }
        const history: HistoryEntry[] = [{ at: createdAt, type: 'created', position: 1, description: STEP_DESCRIPTIONS[0]! }]
        const moved = STEP_DESCRIPTIONS[(position - 1) % STEP_DESCRIPTIONS.length]!
        if (position > 1) history.push({ at: createdAt + DAY * 1000, type: 'moved', position, description: moved })
        if (closed) history.push({ at: createdAt + 2 * DAY * 1000, type: 'closed', position, description: 'Closed' })
        for (const entry of history) await bulk.add('order_history', { id: ++historyId, order_id: id, ...entry, actor: 'staff' })
        const pooled: PoolOrder = { transactionId: publicId, customerId, serviceIndex: s, position }
        if (benchOrder) pools.customerTransactions.push(publicId)
        else if (!closed && pools.addPool.length < 20_000 && i % 6 === 0) pools.addPool.push(pooled)
        else if (!closed && pools.movePool.length < 200_000) pools.movePool.push(pooled)
      }
      await bulk.flush()
      progress(to, bulk.counts)
    })
  }
  return pools
}
