import { type Kysely, sql } from 'kysely'
import { hashPassword, sha256Hex } from '../src/common/crypto.js'
import type { Database } from '../src/db/database.js'
import type { DB } from '../src/db/schema.js'
import { nameKey } from '../src/modules/customers/name-key.js'
import {
  BulkInserter,
  DAY,
  DEFAULT_SIZES,
  FIRST_NAMES,
  ITEM_GROUPS,
  ITEM_TITLES,
  idOf,
  LAST_NAMES,
  rareLastName,
  rng,
  SERVICE_NAMES,
  type SeedSizes,
  STEP_BUTTONS,
  STEP_DESCRIPTIONS,
  STEP_EVENTS,
  ZIPS
} from './seed-data.js'
import { type OrderInputs, type OrderPools, seedOrders } from './seed-orders.js'

/** What the scenarios need to know about the seeded data. */
export interface SeedResult extends OrderPools {
  sizes: SeedSizes
  /** Seconds the seeding took, migrations excluded. */
  seconds: number
  rows: Record<string, number>
  staff: { keyId: string; secret: string; authorization: string }
  /** The customer whose credentials read their own transactions. */
  customer: { id: string; email: string; password: string; authorization: string }
  /** Customer ids to read, spread over the whole table. */
  customerSample: string[]
  services: { name: string; itemIds: number[] }[]
  /** Names actually seeded, for search queries. */
  names: { first: string[]; last: string[] }
}

const STAFF = { keyId: 'key_benchstaff', secret: 'bench-staff-secret-0123456789abcdefghijklmnop' }
const CUSTOMER = { email: 'bench.customer@example.com', password: 'bench-password-1' }

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`

/**
 * Fills a freshly migrated database: customers sharing one password hash (one scrypt), a staff key,
 * services with steps and items, transactions with receipt lines and history, and per-step
 * `order_count` counters exact (D-44). Multi-row inserts in a few large transactions, with explicit
 * ids (PostgreSQL's identity sequences are moved past them).
 */
export async function seed(
  database: Database,
  sizes: SeedSizes = DEFAULT_SIZES,
  log: (line: string) => void = () => {}
): Promise<SeedResult> {
  const started = performance.now()
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)} s`
  const random = rng(7)
  const now = Date.UTC(2026, 0, 15)
  const rows: Record<string, number> = {}
  const count = (counts: Record<string, number>) => {
    for (const [table, n] of Object.entries(counts)) rows[table] = (rows[table] ?? 0) + n
  }
  // Seeding only: the server reopens the file with its own synchronous setting.
  if (database.dialect.name === 'sqlite') await sql`pragma synchronous = OFF`.execute(database.db)

  const customers = await seedCustomers(database, sizes, random, now, count)
  log(`  customers: ${sizes.customers} (${elapsed()})`)
  const catalogue = await seedCatalogue(database, sizes, random, now, count)
  const pools = await seedOrders(database, sizes, random, now, { customerIds: customers.ids, ...catalogue }, (done, counts) => {
    count(counts)
    if (done % 200_000 === 0 || done === sizes.transactions) log(`  transactions: ${done} (${elapsed()})`)
  })
  await sql`update service_steps set order_count = (select count(*) from orders where orders.step_id = service_steps.id)`.execute(
    database.db
  )
  await finish(database)

  const sample: string[] = []
  for (let i = 0; i < Math.min(2000, sizes.customers); i++) sample.push(customers.ids[Math.floor(random() * sizes.customers)]!)
  return {
    sizes,
    seconds: (performance.now() - started) / 1000,
    rows,
    staff: { ...STAFF, authorization: basic(STAFF.keyId, STAFF.secret) },
    customer: { id: customers.ids[0]!, ...CUSTOMER, authorization: basic(CUSTOMER.email, CUSTOMER.password) },
    ...pools,
    customerSample: sample,
    services: catalogue.services,
    names: customers.names
  }
}

/** The staff key and the customers; the first is the bench customer, with a known password. */
async function seedCustomers(
  database: Database,
  sizes: SeedSizes,
  random: () => number,
  now: number,
  count: (counts: Record<string, number>) => void
): Promise<{ ids: string[]; names: SeedResult['names'] }> {
  const passwordHash = await hashPassword(CUSTOMER.password)
  const ids: string[] = new Array(sizes.customers)
  const firstNames = new Set<string>()
  const lastNames = new Set<string>()
  await database.db.transaction().execute(async (trx) => {
    const bulk = new BulkInserter(trx, database.dialect)
    const secretHash = sha256Hex(STAFF.secret)
    await bulk.add('api_keys', {
      id: STAFF.keyId,
      name: 'bench staff',
      role: 'staff',
      secret_hash: secretHash,
      created_at: now,
      revoked_at: null
    })
    for (let i = 0; i < sizes.customers; i++) {
      const id = idOf('cus', random)
      ids[i] = id
      const first = i === 0 ? 'Bench' : FIRST_NAMES[Math.floor(random() * FIRST_NAMES.length)]!
      const last = i === 0 ? 'Customer' : random() < 0.6 ? LAST_NAMES[Math.floor(random() * LAST_NAMES.length)]! : rareLastName(random)
      firstNames.add(first)
      lastNames.add(last)
      const [zip, city, state] = ZIPS[i % ZIPS.length]!
      await bulk.add('customers', {
        id,
        email: i === 0 ? CUSTOMER.email : `${first}.${last}.${i}@example.com`.toLowerCase().replace(/[^a-z0-9.@]/g, 'x'),
        first_name: first,
        last_name: last,
        first_name_lc: nameKey(first),
        last_name_lc: nameKey(last),
        phone: String(2_000_000_000 + Math.floor(random() * 7_000_000_000)),
        preference: random() < 0.3 ? 'No starch, please' : '',
        street: `${1 + Math.floor(random() * 9999)} Main Street`,
        apartment: random() < 0.4 ? `Apt ${1 + Math.floor(random() * 40)}` : '',
        city,
        state,
        zip,
        password_hash: passwordHash,
        payment_customer_id: '',
        card_ciphertext: null,
        card_last4: null,
        card_expiration: null,
        created_at: now - Math.floor(random() * 400) * DAY * 1000,
        updated_at: now
      })
    }
    await bulk.flush()
    count(bulk.counts)
  })
  return { ids, names: { first: [...firstNames], last: [...lastNames] } }
}

/** Services with their steps and items. */
async function seedCatalogue(
  database: Database,
  sizes: SeedSizes,
  random: () => number,
  now: number,
  count: (counts: Record<string, number>) => void
): Promise<Omit<OrderInputs, 'customerIds'>> {
  const services: OrderInputs['services'] = []
  const stepIds: number[][] = []
  const itemPrices = new Map<number, number>()
  await database.db.transaction().execute(async (trx) => {
    const bulk = new BulkInserter(trx, database.dialect)
    let stepId = 0
    let itemId = 0
    for (let s = 0; s < sizes.services; s++) {
      const name = SERVICE_NAMES[s] ?? `Service ${s + 1}`
      const serviceId = s + 1
      await bulk.add('services', {
        id: serviceId,
        public_id: idOf('svc', random),
        name,
        name_key: name.toLowerCase(),
        image_title: name.toLowerCase().replace(/[^a-z0-9]+/g, '_'),
        step_count: sizes.stepsPerService,
        created_at: now + s
      })
      const steps: number[] = []
      for (let p = 1; p <= sizes.stepsPerService; p++) {
        steps.push(++stepId)
        await bulk.add('service_steps', {
          id: stepId,
          service_id: serviceId,
          position: p,
          description: STEP_DESCRIPTIONS[(p - 1) % STEP_DESCRIPTIONS.length]!,
          button_title: STEP_BUTTONS[(p - 1) % STEP_BUTTONS.length]!,
          events: STEP_EVENTS[(p - 1) % STEP_EVENTS.length]!,
          order_count: 0
        })
      }
      stepIds.push(steps)
      const itemIds: number[] = []
      for (let k = 0; k < sizes.itemsPerService; k++) {
        const id = ++itemId
        const price = 100 * (2 + Math.floor(random() * 30)) + (random() < 0.5 ? 50 : 0)
        itemPrices.set(id, price)
        itemIds.push(id)
        await bulk.add('items', {
          id,
          service_id: serviceId,
          title: `${ITEM_TITLES[k % ITEM_TITLES.length]} ${k + 1}`,
          price_cents: price,
          image_url: `item_${id}.png`,
          group_name: ITEM_GROUPS[k % ITEM_GROUPS.length]!,
          removed_at: null,
          created_at: now,
          updated_at: now
        })
      }
      services.push({ name, itemIds })
    }
    await bulk.flush()
    count(bulk.counts)
  })
  return { services, stepIds, itemPrices }
}

/** Identity sequences past the explicit ids and statistics (PostgreSQL), a checkpointed WAL (SQLite). */
async function finish(database: Database): Promise<void> {
  const db = database.db
  if (database.dialect.name === 'postgres') {
    for (const table of ['services', 'service_steps', 'items', 'orders', 'receipt_lines', 'order_history'] as const) {
      const next = sql`coalesce((select max(id) from ${sql.table(table)}), 0) + 1`
      await sql`select setval(pg_get_serial_sequence(${table}, 'id'), ${next}, false)`.execute(db)
    }
    // What autovacuum would do soon after a bulk load, done now so plans do not change mid-run.
    await sql`analyze`.execute(db)
  } else {
    // No ANALYZE: the server never runs one, so neither does a real deployment.
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db)
  }
}

/** Whether the counters the server keeps match the rows: per-step order counts and per-service step counts. */
export async function verifyCounters(db: Kysely<DB>): Promise<{ steps: number; mismatched: number; stepCountsOff: number }> {
  const counts = await db
    .selectFrom('service_steps as st')
    .leftJoin('orders as o', 'o.step_id', 'st.id')
    .select(['st.id', 'st.order_count', (eb) => eb.fn.count<number>('o.id').as('actual')])
    .groupBy(['st.id', 'st.order_count'])
    .execute()
  const stepCounts = await db
    .selectFrom('services as s')
    .select([
      's.step_count',
      (eb) =>
        eb
          .selectFrom('service_steps as st')
          .whereRef('st.service_id', '=', 's.id')
          .select((e) => e.fn.countAll<number>().as('n'))
          .as('n')
    ])
    .execute()
  return {
    steps: counts.length,
    mismatched: counts.filter((row) => Number(row.order_count) !== Number(row.actual)).length,
    stepCountsOff: stepCounts.filter((row) => Number(row.step_count) !== Number(row.n)).length
  }
}
