import { type Insertable, type Kysely, sql } from 'kysely'
import { hashPassword, sha256Hex } from '../src/common/crypto.js'
import type { Database } from '../src/db/database.js'
import type { DB } from '../src/db/schema.js'
import { nameKey } from '../src/modules/customers/name-key.js'

/** How big the data set is (issue 7: 10,000 customers, 20 services of 6 steps with 30 items, 100,000 transactions of ~5 lines). */
export interface SeedSizes {
  customers: number
  transactions: number
  services: number
  stepsPerService: number
  itemsPerService: number
  /** Average receipt lines per transaction (each gets avg-2 to avg+2 distinct items). */
  linesPerTransaction: number
}

export const DEFAULT_SIZES: SeedSizes = {
  customers: 10_000,
  transactions: 100_000,
  services: 20,
  stepsPerService: 6,
  itemsPerService: 30,
  linesPerTransaction: 5
}

/** The scale check's data set (issue 7, part 5). */
export const SCALE_SIZES: SeedSizes = { ...DEFAULT_SIZES, customers: 100_000, transactions: 1_000_000 }

/** An open transaction a write scenario may change. */
export interface PoolOrder {
  transactionId: string
  customerId: string
  serviceIndex: number
  position: number
}

/** What the scenarios need to know about the seeded data. */
export interface SeedResult {
  sizes: SeedSizes
  /** Seconds the seeding took (migrations excluded). */
  seconds: number
  rows: Record<string, number>
  staff: { keyId: string; secret: string; authorization: string }
  /** The customer whose credentials read their own transactions (a known password). */
  customer: { id: string; email: string; password: string; authorization: string }
  customerTransactions: string[]
  /** Customer ids to read, spread over the whole table. */
  customerSample: string[]
  services: { name: string; itemIds: number[] }[]
  /** Open transactions for add-to-receipt (disjoint from movePool and the bench customer's). */
  addPool: PoolOrder[]
  /** Open transactions for moves (disjoint from addPool). */
  movePool: PoolOrder[]
  /** Names actually seeded, for search queries. */
  names: { first: string[]; last: string[] }
}

// ---------------------------------------------------------------------------------------------
// Deterministic pseudo-random data: the same sizes always give the same data set.

/** mulberry32: small, fast, good enough for test data. */
export function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'

/** An id shaped like src/common/ids.ts newId(): prefix, `_`, 24 base32 characters. */
function idOf(prefix: string, random: () => number): string {
  let out = `${prefix}_`
  for (let i = 0; i < 24; i++) out += ALPHABET[Math.floor(random() * 32)]
  return out
}

const FIRST_NAMES = (
  'James Mary Robert Patricia John Jennifer Michael Linda David Elizabeth William Barbara Richard Susan Joseph Jessica Thomas Sarah ' +
  'Christopher Karen Charles Lisa Daniel Nancy Matthew Betty Anthony Sandra Mark Margaret Donald Ashley Steven Kimberly Andrew Emily ' +
  'Paul Donna Joshua Michelle Kenneth Carol Kevin Amanda Brian Melissa George Deborah Timothy Stephanie Ronald Dorothy Jason Rebecca ' +
  'Edward Sharon Jeffrey Laura Ryan Cynthia Jacob Amy Gary Kathleen Nicholas Angela Eric Shirley Jonathan Brenda Stephen Emma Larry ' +
  'Anna Justin Pamela Scott Nicole Brandon Samantha Benjamin Katherine Samuel Christine Gregory Debra Alexander Rachel Patrick ' +
  'Carolyn Frank Janet Raymond Maria Jack Olivia Dennis Heather Jerry Helen Tyler Catherine Aaron Diane Jose Julie Adam Victoria ' +
  'Nathan Joyce Henry Lauren Zachary Kelly Douglas Christina Peter Ruth Kyle Joan Noah Virginia Ethan Judith Jeremy Evelyn Walter ' +
  'Hannah Christian Andrea Keith Megan Roger Cheryl Terry Jacqueline Austin Madison Sean Teresa Gerald Abigail Carl Sophia Harold ' +
  'Martha Dylan Sara Arthur Gloria Lawrence Janice Jordan Kathryn Jesse Ann Bryan Isabella Billy Judy Bruce Charlotte Gabriel Julia ' +
  'Joe Grace Logan Amber Alan Alice Juan Jean Albert Denise Willie Frances Elijah Danielle Wayne Marilyn Randy Natalie Vincent Beverly ' +
  'Mason Diana Roy Brittany Ralph Theresa Bobby Kayla Russell Alexis Bradley Doris Philip Lori Eugene Tiffany Ñuria Zoë Åsa Chloé'
).split(' ')

const LAST_NAMES = (
  'Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez Gonzalez Wilson Anderson Thomas Taylor ' +
  'Moore Jackson Martin Lee Perez Thompson White Harris Sanchez Clark Ramirez Lewis Robinson Walker Young Allen King Wright Scott ' +
  'Torres Nguyen Hill Flores Green Adams Nelson Baker Hall Rivera Campbell Mitchell Carter Roberts Gomez Phillips Evans Turner Diaz ' +
  'Parker Cruz Edwards Collins Reyes Stewart Morris Morales Murphy Cook Rogers Gutierrez Ortiz Morgan Cooper Peterson Bailey Reed ' +
  'Kelly Howard Ramos Kim Cox Ward Richardson Watson Brooks Chavez Wood James Bennett Gray Mendoza Ruiz Hughes Price Alvarez Castillo ' +
  'Sanders Patel Myers Long Ross Foster Jimenez Powell Jenkins Perry Russell Sullivan Bell Coleman Butler Henderson Barnes Gonzales ' +
  'Fisher Vasquez Simmons Romero Jordan Patterson Alexander Hamilton Graham Reynolds Griffin Wallace Moreno West Cole Hayes Bryant ' +
  'Herrera Gibson Ellis Tran Medina Aguilar Stevens Murray Ford Castro Marshall Owens Harrison Fernandez McDonald Woods Washington ' +
  'Kennedy Wells Vargas Henry Chen Freeman Webb Tucker Guzman Burns Crawford Olson Simpson Porter Hunter Gordon Mendez Silva Shaw ' +
  'Snyder Mason Dixon Muñoz Hunt Hicks Holmes Palmer Wagner Black Robertson Boyd Rose Stone Salazar Fox Warren Mills Meyer Rice ' +
  'Schmidt Garza Daniels Ferguson Nichols Stephens Soto Weaver Ryan Gardner Payne Grant Dunn Kelley Spencer Hawkins Arnold Pierce ' +
  'Vazquez Hansen Peters Santos Hart Bradley Knight Elliott Cunningham Duncan Armstrong Hudson Carroll Lane Riley Andrews Alvarado ' +
  'Ray Delgado Berry Perkins Hoffman Johnston Matthews Peña Richards Willis Carpenter Lawrence Sandoval Guerrero George Chapman ' +
  'Rios Estrada Ortega Watkins Greene Nuñez Wheeler Valdez Harper Burke Larson Santiago Maldonado Morrison Franklin Carlson Austin ' +
  "Dominguez Carr Lawson Jacobs O'Brien Lynch Singh Vega Bishop Montgomery Oliver Jensen Harvey Williamson Gilbert Dean Sims Espinoza " +
  'Howell Li Wong Reid Hanson Le McCoy Garrett Burton Fuller Wang Weber Welch Rojas Lucas Marquez Fields Park Yang Little Banks Padilla ' +
  'Day Walsh Bowman Schultz Luna Fowler Mejia Davidson Acosta Brewer May Holland Juarez Newman Pearson Curtis Cortez Douglas Schneider ' +
  'Joseph Barrett Navarro Figueroa Keller Ávila Wade Molina Stanley Hopkins Campos Barnett Bates Chambers Caldwell Beck Lambert Miranda'
).split(' ')

const SYLLABLES = [
  'an',
  'ber',
  'cal',
  'dor',
  'el',
  'fen',
  'gar',
  'hol',
  'is',
  'jan',
  'kov',
  'lind',
  'mar',
  'nor',
  'ost',
  'pel',
  'quin',
  'ros',
  'stein',
  'tor',
  'ul',
  'van',
  'wick',
  'yor',
  'zel'
]

/** A long tail of rarer surnames, as real customer lists have. */
function rareLastName(random: () => number): string {
  const parts = 2 + Math.floor(random() * 2)
  let name = ''
  for (let i = 0; i < parts; i++) name += SYLLABLES[Math.floor(random() * SYLLABLES.length)]
  return name[0]!.toUpperCase() + name.slice(1)
}

const ZIPS = [
  ['10001', 'New York', 'NY'],
  ['60601', 'Chicago', 'IL'],
  ['94103', 'San Francisco', 'CA'],
  ['02108', 'Boston', 'MA'],
  ['98101', 'Seattle', 'WA'],
  ['78701', 'Austin', 'TX'],
  ['30303', 'Atlanta', 'GA'],
  ['80202', 'Denver', 'CO']
] as const

const SERVICE_NAMES = [
  'Wash & Fold',
  'Dry Cleaning',
  'Home Cleaning',
  'Carpet Cleaning',
  'Shirt Service',
  'Suit Pressing',
  'Alterations',
  'Shoe Repair',
  'Leather Care',
  'Curtain Cleaning',
  'Bedding & Duvets',
  'Wedding Dress',
  'Office Cleaning',
  'Window Cleaning',
  'Rug Restoration',
  'Express Laundry',
  'Stain Removal',
  'Uniform Service',
  'Deep Cleaning',
  'Move-out Cleaning',
  'Garden Care',
  'Pet Bedding',
  'Sportswear',
  'Baby Clothes',
  'Sofa Cleaning'
]

const STEP_DESCRIPTIONS = [
  'Order placed',
  'Picked up',
  'In process',
  'Quality check',
  'Out for delivery',
  'Delivered',
  'Invoiced',
  'Archived'
]
const STEP_BUTTONS = ['Pick up', 'Start', 'Check', 'Send out', 'Deliver', 'Close', 'Invoice', 'Archive']
// Events per step: e-mail on order, text when picked up and out for delivery, everything on delivery.
const STEP_EVENTS = ['email', 'text', '', 'trak', 'text', 'email,text,trak', 'email', '']
const ITEM_GROUPS = ['Tops', 'Bottoms', 'Household']
const ITEM_TITLES = [
  'Shirt',
  'Blouse',
  'T-shirt',
  'Sweater',
  'Jacket',
  'Coat',
  'Dress',
  'Skirt',
  'Trousers',
  'Jeans',
  'Shorts',
  'Suit',
  'Tie',
  'Scarf',
  'Sheet'
]

// SQLite allows 32,766 bound parameters per statement, PostgreSQL 65,535: stay under both.
const MAX_PARAMETERS = 30_000

type TableName = keyof DB

/** Multi-row INSERTs of at most MAX_PARAMETERS values each, in the caller's transaction. */
class BulkInserter {
  readonly counts: Record<string, number> = {}
  private readonly buffers = new Map<TableName, unknown[]>()
  private prepared = false

  constructor(
    private readonly trx: Kysely<DB>,
    private readonly dialect: Database['dialect']
  ) {}

  async add<T extends TableName>(table: T, row: Insertable<DB[T]>): Promise<void> {
    let buffer = this.buffers.get(table)
    if (buffer === undefined) {
      buffer = []
      this.buffers.set(table, buffer)
    }
    buffer.push(row)
    const columns = Object.keys(row as object).length
    // Everything is flushed together, in the order tables were first added, so a row is always
    // written after the rows its foreign keys point at.
    if (buffer.length * columns >= MAX_PARAMETERS - columns) await this.flush()
  }

  async flush(): Promise<void> {
    if (!this.prepared && this.dialect.name === 'postgres') {
      // PostgreSQL: no per-row foreign-key triggers for this transaction (the rows are consistent
      // by construction and written in dependency order); a bulk load's usual setting.
      await sql`set local session_replication_role = replica`.execute(this.trx)
      this.prepared = true
    }
    for (const name of this.buffers.keys()) {
      const rows = this.buffers.get(name)
      if (rows === undefined || rows.length === 0) continue
      this.buffers.set(name, [])
      await this.trx
        .insertInto(name)
        .values(rows as never)
        .execute()
      this.counts[name] = (this.counts[name] ?? 0) + rows.length
    }
  }
}

const DAY = 86_400

/**
 * Fills a freshly migrated database (issue 7): customers sharing one precomputed password hash
 * (scrypt costs ~90 ms, once), a staff API key, services with steps and items, transactions with
 * receipt lines and history, and per-step `order_count` counters equal to the number of
 * transactions at each step. Multi-row INSERTs inside a few large database transactions, with
 * explicit ids (identity sequences are moved past them on PostgreSQL).
 */
export async function seed(
  database: Database,
  sizes: SeedSizes = DEFAULT_SIZES,
  log: (line: string) => void = () => {}
): Promise<SeedResult> {
  const started = performance.now()
  const db = database.db
  const random = rng(7)
  const now = Date.UTC(2026, 0, 15)
  const password = 'bench-password-1'
  const passwordHash = await hashPassword(password)
  const staff = { keyId: 'key_benchstaff', secret: 'bench-staff-secret-0123456789abcdefghijklmnop' }
  const rows: Record<string, number> = {}
  const addCounts = (counts: Record<string, number>) => {
    for (const [k, v] of Object.entries(counts)) rows[k] = (rows[k] ?? 0) + v
  }

  if (database.dialect.name === 'sqlite') {
    // Seeding only: the server reopens the file with its own synchronous setting.
    await sql`pragma synchronous = OFF`.execute(db)
  }

  // Customers -------------------------------------------------------------------------------
  const customerIds: string[] = new Array(sizes.customers)
  const firstNames = new Set<string>()
  const lastNames = new Set<string>()
  const benchEmail = 'bench.customer@example.com'
  await db.transaction().execute(async (trx) => {
    const bulk = new BulkInserter(trx, database.dialect)
    await bulk.add('api_keys', {
      id: staff.keyId,
      name: 'bench staff',
      role: 'staff',
      secret_hash: sha256Hex(staff.secret),
      created_at: now,
      revoked_at: null
    })
    for (let i = 0; i < sizes.customers; i++) {
      const id = idOf('cus', random)
      customerIds[i] = id
      const first = i === 0 ? 'Bench' : FIRST_NAMES[Math.floor(random() * FIRST_NAMES.length)]!
      const last = i === 0 ? 'Customer' : random() < 0.6 ? LAST_NAMES[Math.floor(random() * LAST_NAMES.length)]! : rareLastName(random)
      firstNames.add(first)
      lastNames.add(last)
      const [zip, city, state] = ZIPS[i % ZIPS.length]!
      await bulk.add('customers', {
        id,
        email: i === 0 ? benchEmail : `${first}.${last}.${i}@example.com`.toLowerCase().replace(/[^a-z0-9.@]/g, 'x'),
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
    addCounts(bulk.counts)
  })
  log(`  customers: ${sizes.customers} (${((performance.now() - started) / 1000).toFixed(1)} s)`)

  // Catalogue -------------------------------------------------------------------------------
  const services: SeedResult['services'] = []
  const stepIds: number[][] = []
  const itemPrices = new Map<number, number>()
  await db.transaction().execute(async (trx) => {
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
    addCounts(bulk.counts)
  })

  // Transactions, receipt lines, history ----------------------------------------------------
  const last = sizes.stepsPerService
  const customerTransactions: string[] = []
  const addPool: PoolOrder[] = []
  const movePool: PoolOrder[] = []
  const BENCH_CUSTOMER_ORDERS = 20
  const CHUNK = 50_000
  let lineId = 0
  let historyId = 0
  for (let from = 0; from < sizes.transactions; from += CHUNK) {
    const to = Math.min(sizes.transactions, from + CHUNK)
    await db.transaction().execute(async (trx) => {
      const bulk = new BulkInserter(trx, database.dialect)
      for (let i = from; i < to; i++) {
        const id = i + 1
        const benchOrder = i < BENCH_CUSTOMER_ORDERS
        const customerIndex = benchOrder ? 0 : Math.floor(random() * sizes.customers)
        const customerId = customerIds[customerIndex]!
        const s = Math.floor(random() * sizes.services)
        const closed = !benchOrder && random() < 0.35
        const position = closed ? last : 1 + Math.floor(random() * last)
        const stepId = stepIds[s]![position - 1]!
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
          step_id: stepId,
          status: closed ? 'closed' : 'open',
          pickup_at: pickup,
          delivery_at: pickup + 2 * DAY,
          note: random() < 0.3 ? 'Leave at the front desk' : '',
          created_at: createdAt,
          updated_at: createdAt
        })
        // Receipt lines: avg-2 .. avg+2 distinct items of the service.
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
        await bulk.add('order_history', {
          id: ++historyId,
          order_id: id,
          at: createdAt,
          type: 'created',
          position: 1,
          description: STEP_DESCRIPTIONS[0]!,
          actor: 'staff'
        })
        if (position > 1) {
          await bulk.add('order_history', {
            id: ++historyId,
            order_id: id,
            at: createdAt + DAY * 1000,
            type: 'moved',
            position,
            description: STEP_DESCRIPTIONS[(position - 1) % STEP_DESCRIPTIONS.length]!,
            actor: 'staff'
          })
        }
        if (closed) {
          await bulk.add('order_history', {
            id: ++historyId,
            order_id: id,
            at: createdAt + 2 * DAY * 1000,
            type: 'closed',
            position,
            description: 'Closed',
            actor: 'staff'
          })
        }
        const pooled: PoolOrder = { transactionId: publicId, customerId, serviceIndex: s, position }
        if (benchOrder) customerTransactions.push(publicId)
        else if (!closed && addPool.length < 20_000 && i % 6 === 0) addPool.push(pooled)
        else if (!closed && movePool.length < 200_000) movePool.push(pooled)
      }
      await bulk.flush()
      addCounts(bulk.counts)
    })
    if (to % 200_000 === 0 || to === sizes.transactions) {
      log(`  transactions: ${to} (${((performance.now() - started) / 1000).toFixed(1)} s)`)
    }
  }

  // Counters exact (D-44): each step's order_count is the number of transactions at it.
  await sql`update service_steps set order_count = (select count(*) from orders where orders.step_id = service_steps.id)`.execute(db)

  await finish(database)

  const sample: string[] = []
  for (let i = 0; i < Math.min(2000, sizes.customers); i++) sample.push(customerIds[Math.floor(random() * sizes.customers)]!)
  const seconds = (performance.now() - started) / 1000
  return {
    sizes,
    seconds,
    rows,
    staff: { ...staff, authorization: basic(staff.keyId, staff.secret) },
    customer: { id: customerIds[0]!, email: benchEmail, password, authorization: basic(benchEmail, password) },
    customerTransactions,
    customerSample: sample,
    services,
    addPool,
    movePool,
    names: { first: [...firstNames], last: [...lastNames] }
  }
}

/** Identity sequences past the explicit ids (PostgreSQL), statistics, and a checkpointed WAL (SQLite). */
async function finish(database: Database): Promise<void> {
  const db = database.db
  if (database.dialect.name === 'postgres') {
    for (const table of ['services', 'service_steps', 'items', 'orders', 'receipt_lines', 'order_history'] as const) {
      await sql`select setval(pg_get_serial_sequence(${table}, 'id'), coalesce((select max(id) from ${sql.table(table)}), 0) + 1, false)`.execute(
        db
      )
    }
    // What autovacuum would do shortly after a bulk load; done now so plans do not change mid-run.
    await sql`analyze`.execute(db)
  } else {
    // SQLite: no ANALYZE (the server never runs one, so neither does a real deployment).
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db)
  }
}

/** An HTTP Basic `Authorization` value. */
export function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`
}

/** Checks the counters the seed promises (and that the server keeps): per-step counts equal the transactions at each step. */
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
