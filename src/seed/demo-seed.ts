import { randomBytes } from 'node:crypto'
import type { Clock } from '../common/clock.js'
import { hashPassword } from '../common/crypto.js'
import { newId } from '../common/ids.js'
import type { Database } from '../db/database.js'
import { encodeEvents, parseEvents } from '../modules/catalogue/events.js'
import { itemsRepository } from '../modules/catalogue/items.repository.js'
import { cleanServiceName, defaultImageTitle, serviceNameKey, serviceNameProblem } from '../modules/catalogue/names.js'
import { servicesRepository } from '../modules/catalogue/services.repository.js'
import { nameKey } from '../modules/customers/name-key.js'
import { DEMO_CUSTOMERS, DEMO_SERVICES, type DemoCustomer, type DemoService } from './demo-data.js'

/** What one run of the demo seed did. Passwords are only known for customers created by this run. */
export interface SeedReport {
  services: { name: string; created: boolean; steps: number; items: number }[]
  customers: { email: string; created: boolean; password: string | null }[]
}

// D-45, D-70: the limits the HTTP operations enforce, so the demo data could have been sent over HTTP.
const MAX_PRICE_CENTS = 10_000_000
const MAX_TEXT = 500

/** Throws when the demo data breaks a rule the API enforces (a mistake in demo-data.ts, not a user error). */
function checkService(service: DemoService): void {
  const problem = serviceNameProblem(cleanServiceName(service.name))
  if (problem !== undefined) throw new Error(`demo service name ${JSON.stringify(service.name)} ${problem}`)
  if (service.steps.length < 1) throw new Error(`demo service ${service.name} has no steps`)
  for (const step of service.steps) {
    if (step.description.length > MAX_TEXT || step.button_title.length > MAX_TEXT)
      throw new Error(`demo step of ${service.name} is too long`)
    if ('unknownAt' in parseEvents(step.events)) throw new Error(`demo step of ${service.name} has an unknown event`)
  }
  for (const item of service.items) {
    if (!Number.isSafeInteger(item.price_cents) || item.price_cents < 0 || item.price_cents > MAX_PRICE_CENTS) {
      throw new Error(`demo item ${item.title} has a price out of range`)
    }
  }
}

/**
 * Creates one service with all its steps and items in one database transaction, so a service is
 * there whole or not at all; an existing service of that name (any case, D-40) is left as it is.
 */
async function seedService(database: Database, clock: Clock, service: DemoService): Promise<boolean> {
  checkService(service)
  const services = servicesRepository(database)
  const items = itemsRepository(database)
  const name = cleanServiceName(service.name)
  const key = serviceNameKey(name)
  try {
    return await database.unitOfWork.run(async (tx) => {
      if ((await services.findByKey(tx, key, 'none')) !== undefined) return false
      const now = clock.now()
      const serviceId = await services.insertService(tx, {
        public_id: newId('svc'),
        name,
        name_key: key,
        image_title: defaultImageTitle(name),
        created_at: now
      })
      for (const [index, step] of service.steps.entries()) {
        await services.insertStep(tx, {
          service_id: serviceId,
          position: index + 1,
          description: step.description,
          button_title: step.button_title,
          events: encodeEvents(step.events)
        })
        // The service row starts with one step; step_count stays equal to the step rows (catalogue.table.ts).
        if (index > 0) await services.changeStepCount(tx, serviceId, 1)
      }
      for (const item of service.items) {
        await items.insert(tx, {
          service_id: serviceId,
          title: item.title,
          price_cents: item.price_cents,
          image_url: item.image_url,
          group_name: item.group,
          created_at: now
        })
      }
      return true
    })
  } catch (error) {
    // Another seed created the same service at the same moment: the unique name index decided.
    if (database.dialect.isUniqueViolation(error)) return false
    throw error
  }
}

/** A password to print once: 16 random URL-safe characters (D-31 allows 8 to 128). */
function newPassword(): string {
  return randomBytes(12).toString('base64url')
}

async function customerExists(database: Database, email: string): Promise<boolean> {
  const row = await database.db.selectFrom('customers').select('id').where('email', '=', email).executeTakeFirst()
  return row !== undefined
}

/** Inserts a customer with a new password unless the e-mail is taken; returns the password when created. */
async function seedCustomer(database: Database, clock: Clock, customer: DemoCustomer): Promise<string | null> {
  const email = customer.email.toLowerCase()
  if (await customerExists(database, email)) return null
  const password = newPassword()
  // Hashed before the transaction: a slow hash must not hold SQLite's write lock.
  const passwordHash = await hashPassword(password)
  const now = clock.now()
  try {
    await database.unitOfWork.run(async ({ db: trx }) => {
      await trx
        .insertInto('customers')
        .values({
          id: newId('cus'),
          email,
          first_name: customer.first_name,
          last_name: customer.last_name,
          first_name_lc: nameKey(customer.first_name),
          last_name_lc: nameKey(customer.last_name),
          phone: customer.phone,
          preference: customer.preference,
          street: customer.street,
          apartment: customer.apartment,
          city: customer.city,
          state: customer.state,
          zip: customer.zip,
          password_hash: passwordHash,
          payment_customer_id: '',
          card_ciphertext: null,
          card_last4: null,
          card_expiration: null,
          created_at: now,
          updated_at: now
        })
        .execute()
    })
  } catch (error) {
    // Created by another seed since the check above: the unique e-mail index decided.
    if (database.dialect.isUniqueViolation(error)) return null
    throw error
  }
  return password
}

/**
 * D-90 `seed --demo`: the demo catalogue and customers. Services are found by name (ignoring case)
 * and customers by e-mail; what exists is left as it is, so running it again adds nothing.
 */
export async function seedDemo(database: Database, clock: Clock): Promise<SeedReport> {
  const report: SeedReport = { services: [], customers: [] }
  for (const service of DEMO_SERVICES) {
    const created = await seedService(database, clock, service)
    report.services.push({ name: service.name, created, steps: service.steps.length, items: service.items.length })
  }
  for (const customer of DEMO_CUSTOMERS) {
    const password = await seedCustomer(database, clock, customer)
    report.customers.push({ email: customer.email.toLowerCase(), created: password !== null, password })
  }
  return report
}

/** The report as printed by the CLI: what was created, and each new customer's password, once. */
export function formatSeedReport(report: SeedReport): string {
  const lines = ['Demo services:']
  for (const s of report.services) {
    lines.push(s.created ? `  created  ${s.name} (${s.steps} steps, ${s.items} items)` : `  exists   ${s.name} (left as it is)`)
  }
  lines.push('Demo customers (HTTP Basic user name = e-mail, password as shown; passwords are shown only once):')
  for (const c of report.customers) {
    lines.push(c.created ? `  created  ${c.email}  password: ${c.password}` : `  exists   ${c.email} (password unchanged)`)
  }
  const createdCount = report.services.filter((s) => s.created).length + report.customers.filter((c) => c.created).length
  if (createdCount === 0) lines.push('Nothing to add: the demo data is already there.')
  return `${lines.join('\n')}\n`
}
