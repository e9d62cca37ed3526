import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { buildApp } from '../../../src/app.js'
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
