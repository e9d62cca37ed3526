import { type Insertable, type Kysely, sql } from 'kysely'
import type { Database } from '../src/db/database.js'
import type { DB } from '../src/db/schema.js'

// The seed's building blocks: how big, deterministic values, and multi-row inserts.

/** How big the data set is. */
export interface SeedSizes {
  customers: number
  transactions: number
  services: number
  stepsPerService: number
  itemsPerService: number
  /** Average receipt lines per transaction. */
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

/** `--scale`'s large data set. */
export const SCALE_SIZES: SeedSizes = { ...DEFAULT_SIZES, customers: 100_000, transactions: 1_000_000 }

export const DAY = 86_400

/** mulberry32: small, fast, good enough for test data; the same seed always gives the same data set. */
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
export function idOf(prefix: string, random: () => number): string {
  let out = `${prefix}_`
  for (let i = 0; i < 24; i++) out += ALPHABET[Math.floor(random() * 32)]
  return out
}

export const FIRST_NAMES = (
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

export const LAST_NAMES = (
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

const SYLLABLES = 'an ber cal dor el fen gar hol is jan kov lind mar nor ost pel quin ros stein tor ul van wick yor zel'.split(' ')

/** A long tail of rarer surnames, as real customer lists have. */
export function rareLastName(random: () => number): string {
  const parts = 2 + Math.floor(random() * 2)
  let name = ''
  for (let i = 0; i < parts; i++) name += SYLLABLES[Math.floor(random() * SYLLABLES.length)]
  return name[0]!.toUpperCase() + name.slice(1)
}

export const ZIPS = [
  ['10001', 'New York', 'NY'],
  ['60601', 'Chicago', 'IL'],
  ['94103', 'San Francisco', 'CA'],
  ['02108', 'Boston', 'MA'],
  ['98101', 'Seattle', 'WA'],
  ['78701', 'Austin', 'TX'],
  ['30303', 'Atlanta', 'GA'],
  ['80202', 'Denver', 'CO']
] as const

export const SERVICE_NAMES = (
  'Wash & Fold,Dry Cleaning,Home Cleaning,Carpet Cleaning,Shirt Service,Suit Pressing,Alterations,Shoe Repair,Leather Care,' +
  'Curtain Cleaning,Bedding & Duvets,Wedding Dress,Office Cleaning,Window Cleaning,Rug Restoration,Express Laundry,Stain Removal,' +
  'Uniform Service,Deep Cleaning,Move-out Cleaning,Garden Care,Pet Bedding,Sportswear,Baby Clothes,Sofa Cleaning'
).split(',')

export const STEP_DESCRIPTIONS = 'Order placed,Picked up,In process,Quality check,Out for delivery,Delivered,Invoiced,Archived'.split(',')
export const STEP_BUTTONS = ['Pick up', 'Start', 'Check', 'Send out', 'Deliver', 'Close', 'Invoice', 'Archive']
// Events per step: e-mail on order, text when picked up and out for delivery, everything on delivery.
export const STEP_EVENTS = ['email', 'text', '', 'trak', 'text', 'email,text,trak', 'email', '']
export const ITEM_GROUPS = ['Tops', 'Bottoms', 'Household']
export const ITEM_TITLES = 'Shirt Blouse T-shirt Sweater Jacket Coat Dress Skirt Trousers Jeans Shorts Suit Tie Scarf Sheet'.split(' ')

// SQLite allows 32,766 bound parameters per statement, PostgreSQL 65,535: stay under both.
const MAX_PARAMETERS = 30_000

type TableName = keyof DB

/** Multi-row INSERTs of at most MAX_PARAMETERS values each, in the caller's transaction. */
export class BulkInserter {
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
