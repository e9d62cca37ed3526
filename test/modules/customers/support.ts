import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { buildApp } from '../../../src/app.js'
import { nameKey } from '../../../src/modules/customers/name-key.js'
import { createLogger } from '../../../src/platform/logger.js'
import { basic, DIALECTS, type PostOptions, TestApp } from '../../helpers/app.js'
import { ok } from '../../helpers/assertions.js'

/**
 * A TestApp whose data key is known, so tests can open what the app seals (reset links, cards).
 * The app TestApp built is replaced by one on the same database, clock, keys and log capture.
 */
export class KeyedTestApp extends TestApp {
  readonly dataKey = randomBytes(32)

  override async start(): Promise<void> {
    await super.start()
    await this.app.close()
    const logger = createLogger('info', { write: (line: string) => void this.logs.push(line) })
    this.app = await buildApp({ config: this.config, database: this.database, dataKey: this.dataKey, clock: this.clock, logger })
    await this.app.ready()
  }
}

/** describeEachDialect with a KeyedTestApp. */
export function describeEachDialectKeyed(title: string, body: (t: KeyedTestApp) => void, env: Record<string, string> = {}): void {
  for (const dialect of DIALECTS) {
    describe(`${title} [${dialect}]`, () => {
      const t = new KeyedTestApp(dialect, env)
      before(() => t.start())
      after(() => t.stop())
      body(t)
    })
  }
}

let sequence = 0

/** A fresh e-mail address, unique in the test process. */
export function uniqueEmail(tag = 'customer'): string {
  sequence += 1
  return `${tag}.${process.pid}.${sequence}.${randomBytes(3).toString('hex')}@example.com`
}

/** Creates a customer through the API (staff key) and returns the create response body. */
export async function createCustomer(t: TestApp, body: { email?: string; zip?: string; password?: string } = {}): Promise<any> {
  return ok(
    await t.post('/v1/customer/create', {
      email: body.email ?? uniqueEmail(),
      zip: body.zip ?? '90210',
      ...(body.password === undefined ? {} : { password: body.password })
    })
  )
}

/** A customer with a password, and the Basic header of their e-mail and password. */
export async function customerWithPassword(
  t: TestApp,
  password = 'correct horse battery'
): Promise<{ id: string; email: string; password: string; auth: string }> {
  const email = uniqueEmail('login')
  const created = await createCustomer(t, { email, password })
  return { id: created.customer_id, email, password, auth: basic(email, password) }
}

/** Updates a customer (staff key) and returns the read shape. */
export async function updateCustomer(t: TestApp, customer: Record<string, unknown>, options: PostOptions = {}): Promise<any> {
  return ok(await t.post('/v1/customer/update', { customer }, options))
}

/** The read shape of a customer (staff key). */
export async function getCustomer(t: TestApp, id: string): Promise<any> {
  return ok(await t.post(`/v1/customer/${id}`))
}

/** The stored row of a customer, every column. */
export async function storedCustomer(t: TestApp, id: string) {
  return t.database.db.selectFrom('customers').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

/** The read shape a customer created by createCustomer with zip 90210 has before any update. */
export function freshView(created: { customer_id: string; email: string }): Record<string, unknown> {
  return {
    customer_id: created.customer_id,
    first_name: '',
    last_name: '',
    username: created.email,
    email: created.email,
    phone: '',
    preference: '',
    address: { street: '', apartment: '', city: 'Beverly Hills', state: 'CA', zipcode: '90210' }
  }
}

/** Asserts that none of `secrets` occurs in any of the texts (response bodies, headers, log lines). */
export function assertAbsent(texts: readonly string[], secrets: readonly (string | RegExp)[]): void {
  for (const text of texts) {
    for (const secret of secrets) {
      const found = typeof secret === 'string' ? text.includes(secret) : secret.test(text)
      assert.ok(!found, `found ${String(secret)} in: ${text.slice(0, 300)}`)
    }
  }
}

/** A short secret (a security code) as a token of its own, not as part of a longer run of letters or digits. */
export function standalone(secret: string): RegExp {
  return new RegExp(`(?<![0-9A-Za-z])${secret}(?![0-9A-Za-z])`)
}

/** Everything a response shows a client: status line, headers and body. */
export function visible(response: LightMyRequestResponse): string {
  return `${response.statusCode}\n${JSON.stringify(response.headers)}\n${response.body}`
}

/** A card number of `length` digits starting with `start`, completed with a Luhn check digit. */
export function luhnNumber(start: string, length: number): string {
  let body = start.padEnd(length - 1, '0')
  let sum = 0
  for (let i = 0; i < body.length; i++) {
    let digit = Number(body[body.length - 1 - i])
    if (i % 2 === 0) {
      digit *= 2
      if (digit > 9) digit -= 9
    }
    sum += digit
  }
  body += String((10 - (sum % 10)) % 10)
  return body
}

/** `MM/YYYY` of the month `monthsAhead` months from the app clock's now (UTC). */
export function expiry(t: TestApp, monthsAhead: number): string {
  const now = new Date(t.clock.now())
  const date = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + monthsAhead, 1))
  return `${String(date.getUTCMonth() + 1).padStart(2, '0')}/${date.getUTCFullYear()}`
}

/** A customer as search sees them (D-33). */
export interface SearchPerson {
  id: string
  email: string
  first: string
  last: string
  phone: string
}

/** A customer made through the API with this full name, e-mail and phone, as search sees them. */
export async function searchPerson(t: TestApp, name: string, email: string, phone = ''): Promise<SearchPerson> {
  const created = await createCustomer(t, { email })
  const view = await updateCustomer(t, { customer_id: created.customer_id, customer_name: name, ...(phone === '' ? {} : { phone }) })
  return { id: created.customer_id, email: view.email, first: view.first_name, last: view.last_name, phone: view.phone }
}

/**
 * D-33 as written, independently of the server: each word of the query (case and accents folded as
 * names are, `nameKey`) starts some word of the first or last name (a hyphen parts words too), or
 * starts the e-mail, or, of 3 or more digits, appears in the phone's digits.
 */
export function matchesQuery(query: string): (p: SearchPerson) => boolean {
  const words = nameKey(query)
    .split(/\s+/)
    .filter((w) => w !== '')
  return (p) => {
    const names = `${nameKey(p.first)} ${nameKey(p.last)}`
    const nameWords = [...names.split(' '), ...names.split(/[ -]/)].filter((w) => w !== '')
    return (
      words.length > 0 &&
      words.every(
        (w) => nameWords.some((n) => n.startsWith(w)) || nameKey(p.email).startsWith(w) || (/^[0-9]{3,}$/.test(w) && p.phone.includes(w))
      )
    )
  }
}

/** The answer a search should give: `people` it matches, by folded last name, first name, then id, at most `limit`. */
export function expectedHits(people: readonly SearchPerson[], filter: (p: SearchPerson) => boolean, limit = 20) {
  const keys = (p: SearchPerson) => [nameKey(p.last), nameKey(p.first), p.id]
  const byKeys = (a: SearchPerson, b: SearchPerson) => {
    const [x, y] = [keys(a), keys(b)]
    for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return Buffer.compare(Buffer.from(x[i]!), Buffer.from(y[i]!))
    return 0
  }
  return {
    customer: people
      .filter(filter)
      .sort(byKeys)
      .slice(0, limit)
      .map((p) => ({ customer_id: p.id, customer_name: `${p.first} ${p.last}`.trim(), customer_email: p.email }))
  }
}

/** The customers of the search tests: full name, e-mail, phone. */
const SEARCH_PEOPLE: ReadonlyArray<readonly [string, string, string]> = [
  ['John Smith', 'john.smith@example.com', '2125550123'],
  ['john smith', 'jsmith2@example.com', ''], // the same name: ordered by id
  ['Johanna Smythe', 'hanna@example.com', ''],
  ['Jo Brown', 'brownie@example.com', '3105550199'],
  ['Smith Johnson', 'sj@example.com', ''], // first name Smith
  ['Mary Ann Smith', 'mary.ann@example.com', ''], // last name "Ann Smith"
  ['Olga Van Der Berg', 'olga.v@example.com', '4155550100'],
  ['Zoë Adams', 'zadams@example.com', ''],
  ['Émile Zola', 'ezola@example.com', ''],
  ['Zoe Émond', 'zoe.e@example.com', ''],
  ['Cher', 'cher@example.com', ''],
  ['Anna Annabelle', 'anna.annabelle@example.com', ''], // "ann" starts three of her terms
  ['Bob Smith-Jones', 'bob@example.com', '6175559876'],
  // Longer than the 8 code points of a kept prefix (migration 0016), sharing those 8.
  ['Maximilian Schwarzenegger', 'max1@example.com', ''],
  ['Maximiliane Schwarzkopf', 'max2@example.com', ''],
  ['Maximilia Schwarzer', 'max3@example.com', ''],
  // Outside the Basic Multilingual Plane: prefixes count code points, not UTF-16 units.
  ['𐐀lice Ünal', 'alice.u@example.com', ''],
  // Case and accents folded further than lower-casing does.
  ['José García', 'jgarcia@example.com', ''],
  ['İsmail Yıldız', 'iy@example.com', ''],
  ['Lena Straße', 'lena@example.com', ''],
  ['Åsa Ölund', 'asa@example.com', ''],
  ['Seamus O´Brien', 'seamus@example.com', ''],
  ['Łukasz Łódź', 'lukasz@example.com', ''],
  ['Pat Digits', '55.pilot@example.com', '5512345678'], // "55" by the e-mail, never by a phone
  ['Kay Tick', 'k`tick@example.com', ''] // a backtick, which the name key folds to an apostrophe
]

/** The people of SEARCH_PEOPLE, made through the API, and one customer without a name (never a hit by name). */
export async function seedSearchPeople(t: TestApp): Promise<SearchPerson[]> {
  const people: SearchPerson[] = []
  for (const [name, email, phone] of SEARCH_PEOPLE) people.push(await searchPerson(t, name, email, phone))
  const nameless = await createCustomer(t, { email: 'nameless@example.com' })
  people.push({ id: nameless.customer_id, email: nameless.email, first: '', last: '', phone: '' })
  return people
}
