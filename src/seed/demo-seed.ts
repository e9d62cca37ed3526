import type { Clock } from '../common/clock.js'
import type { Database } from '../db/database.js'
import { seedService } from '../modules/catalogue/index.js'
import { seedCustomer } from '../modules/customers/index.js'
import { DEMO_CUSTOMERS, DEMO_SERVICES } from './demo-data.js'

/** What one run of the demo seed did. Passwords are only known for customers created by this run. */
export interface SeedReport {
  services: { name: string; created: boolean; steps: number; items: number }[]
  customers: { email: string; created: boolean; password: string | null }[]
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
