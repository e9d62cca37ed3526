import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { defaultImageTitle } from '../../../src/modules/catalogue/names.js'
import { DEMO_CUSTOMERS, DEMO_SERVICES, type DemoService } from '../../../src/seed/demo-data.js'
import { seedDemo } from '../../../src/seed/demo-seed.js'
import { basic, describeEachDialect, type TestApp } from '../../helpers/app.js'
import { ok } from '../../helpers/assertions.js'
import { createCustomer, createService } from '../../helpers/factories.js'
import { CLI, nodeArgs } from '../../helpers/processes.js'
import { getStep, readStats } from './support.js'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

interface CliResult {
  code: number
  stdout: string
  stderr: string
}

/** Runs `service-ordering …` against the suite's database, as an operator would. */
function runCli(t: TestApp, args: string[]): Promise<CliResult> {
  const database = t.config.database
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: database.kind === 'sqlite' ? `sqlite:${database.file}` : database.url,
    DATA_DIR: t.config.dataDir,
    LOG_LEVEL: 'silent'
  }
  // The child is a program, not a test file.
  delete env.NODE_TEST_CONTEXT
  return new Promise((resolve) => {
    // Generous: the machine may be busy.
    execFile(process.execPath, [...nodeArgs(CLI), ...args], { cwd: ROOT, env, timeout: 120_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1
      resolve({ code, stdout, stderr })
    })
  })
}

async function counts(t: TestApp): Promise<Record<string, number>> {
  const db = t.database.db
  const count = async (table: 'services' | 'service_steps' | 'items' | 'customers') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n
    )
  return {
    services: await count('services'),
    service_steps: await count('service_steps'),
    items: await count('items'),
    customers: await count('customers')
  }
}

/** `created  EMAIL  password: PASSWORD` lines of the seed's output. */
function passwordsIn(stdout: string): Map<string, string> {
  const found = new Map<string, string>()
  for (const match of stdout.matchAll(/^ {2}created {2}(\S+@\S+) {2}password: (\S+)$/gm)) found.set(match[1]!, match[2]!)
  return found
}

/** Spec "Get items" of a demo service as its data describes it (item ids from the answer). */
function expectedItems(service: DemoService, ids: string[]) {
  const groups = new Map<string, { group: string; item: { item_id: string; title: string; image_url: string; price: string }[] }>()
  service.items.forEach((item, index) => {
    if (!groups.has(item.group)) groups.set(item.group, { group: item.group, item: [] })
    groups
      .get(item.group)!
      .item.push({ item_id: ids[index]!, title: item.title, image_url: item.image_url, price: String(item.price_cents) })
  })
  return { item: { item_count: service.items.length, service_name: service.name }, item_group: [...groups.values()] }
}

const TOTAL = {
  services: DEMO_SERVICES.length,
  service_steps: DEMO_SERVICES.reduce((sum, s) => sum + s.steps.length, 0),
  items: DEMO_SERVICES.reduce((sum, s) => sum + s.items.length, 0),
  customers: DEMO_CUSTOMERS.length
}

describe('demo seed data (D-90)', () => {
  it('should hold at least three services of 4 to 7 steps, each step with a button title and events', () => {
    assert.ok(DEMO_SERVICES.length >= 3)
    const eventsUsed = new Set<string>()
    for (const service of DEMO_SERVICES) {
      assert.ok(service.steps.length >= 4 && service.steps.length <= 7, service.name)
      for (const step of service.steps) {
        assert.ok(step.description.trim().length > 0)
        assert.ok(step.button_title.trim().length > 0, `${service.name}: ${step.description}`)
        assert.ok(step.events.length > 0, `${service.name}: ${step.description}`)
        for (const e of step.events) eventsUsed.add(e)
      }
      // A mix: some step of each service announces more than one event.
      assert.ok(
        service.steps.some((s) => s.events.length > 1),
        service.name
      )
    }
    assert.deepEqual([...eventsUsed].sort(), ['email', 'text', 'trak'])
  })

  it('should hold 8 or more priced items per service in 2 or 3 groups, titles unique in the service', () => {
    for (const service of DEMO_SERVICES) {
      assert.ok(service.items.length >= 8, service.name)
      const groups = new Set(service.items.map((i) => i.group))
      assert.ok(groups.size >= 2 && groups.size <= 3, service.name)
      assert.equal(new Set(service.items.map((i) => i.title)).size, service.items.length)
      for (const item of service.items) {
        assert.ok(Number.isSafeInteger(item.price_cents) && item.price_cents > 0 && item.price_cents <= 10_000_000, item.title)
        assert.match(item.image_url, /^[a-z0-9-]+\.jpg$/)
      }
    }
  })

  it('should hold a few customers at example.com with real ZIP codes, cities and states', () => {
    const zipcodes = createRequire(import.meta.url)('zipcodes') as { lookup(zip: string): { city: string; state: string } | undefined }
    assert.ok(DEMO_CUSTOMERS.length >= 3)
    assert.equal(new Set(DEMO_CUSTOMERS.map((c) => c.email)).size, DEMO_CUSTOMERS.length)
    for (const customer of DEMO_CUSTOMERS) {
      assert.match(customer.email, /^[a-z]+\.[a-z]+@example\.com$/)
      assert.match(customer.phone, /^[0-9]{10}$/)
      const place = zipcodes.lookup(customer.zip)
      assert.deepEqual({ city: customer.city, state: customer.state }, { city: place?.city, state: place?.state }, customer.zip)
    }
  })
})

describeEachDialect('service-ordering seed --demo (D-90)', (t) => {
  let passwords = new Map<string, string>()
  let preexisting = { email: '', password: '' }

  it('should print usage and exit 2 without --demo or with anything else, changing nothing', async () => {
    for (const args of [['seed'], ['seed', '--demo', '--full']]) {
      const result = await runCli(t, args)
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`)
      assert.match(result.stderr, /usage: service-ordering <command>/)
      assert.match(result.stderr, /seed --demo/)
      assert.equal(result.stdout, '')
    }
    assert.deepEqual(await counts(t), { services: 0, service_steps: 0, items: 0, customers: 0 })
  })

  it('should create the demo catalogue and customers, printing each new password once', async () => {
    // A customer whose e-mail is already taken is found and left alone.
    preexisting = { email: 'james.chen@example.com', password: 'my own password' }
    await createCustomer(t, { email: preexisting.email, password: preexisting.password, firstName: 'Jim', lastName: 'Chen' })
    const result = await runCli(t, ['seed', '--demo'])
    assert.equal(result.code, 0, result.stderr)
    assert.equal(result.stderr, '')
    for (const service of DEMO_SERVICES) {
      assert.ok(
        result.stdout.includes(`  created  ${service.name} (${service.steps.length} steps, ${service.items.length} items)\n`),
        result.stdout
      )
    }
    assert.ok(result.stdout.includes(`  exists   ${preexisting.email} (password unchanged)\n`), result.stdout)
    passwords = passwordsIn(result.stdout)
    assert.deepEqual(
      [...passwords.keys()].sort(),
      DEMO_CUSTOMERS.map((c) => c.email)
        .filter((e) => e !== preexisting.email)
        .sort()
    )
    for (const password of passwords.values()) assert.ok(password.length >= 12)
    assert.deepEqual(await counts(t), TOTAL)
  })

  it('should read the services back over HTTP exactly as the demo data describes them', async () => {
    const stats = await readStats(t)
    assert.deepEqual(
      stats.service_stats.map((s) => s.service),
      DEMO_SERVICES.map((service) =>
        service.steps.map((step, index) => ({
          ...(index === 0 ? { service_name: service.name, image_title: defaultImageTitle(service.name) } : {}),
          shade: index % 2 === 0 ? 'd' : 'l',
          position_number: String(index + 1),
          description: step.description,
          position_count: 0,
          ...(index === 0 ? { total_orders: 0 } : {})
        }))
      )
    )
    for (const service of DEMO_SERVICES) {
      for (const [index, step] of service.steps.entries()) {
        const view = ok(await getStep(t, service.name, index + 1, t.auth.app))
        assert.deepEqual(view.position, {
          position_number: String(index + 1),
          position_description: step.description,
          button_title: step.button_title,
          events: step.events.map((event) => ({ event }))
        })
        assert.equal(view.progress_bar.total_steps, service.steps.length)
      }
      const items = ok(await t.post(`/v1/service/${encodeURIComponent(service.name)}`, undefined, { auth: t.auth.app }))
      const ids: string[] = items.item_group.flatMap((g: { item: { item_id: string }[] }) => g.item.map((i) => i.item_id))
      const byTitle = new Map<string, string>(
        items.item_group.flatMap((g: { item: { item_id: string; title: string }[] }) => g.item.map((i) => [i.title, i.item_id] as const))
      )
      assert.equal(ids.length, service.items.length)
      assert.deepEqual(
        items,
        expectedItems(
          service,
          service.items.map((i) => byTitle.get(i.title)!)
        )
      )
    }
  })

  it('should let each new demo customer authenticate with the printed password', async () => {
    for (const [email, password] of passwords) {
      ok(await getStep(t, 'Wash & Fold', 1, basic(email, password)))
    }
    ok(await getStep(t, 'Wash & Fold', 1, basic(preexisting.email, preexisting.password)))
  })

  it('should add nothing when run again, and leave the passwords as they were', async () => {
    const statsBefore = await readStats(t)
    const result = await runCli(t, ['seed', '--demo'])
    assert.equal(result.code, 0, result.stderr)
    assert.match(result.stdout, /Nothing to add: the demo data is already there\.\n$/)
    assert.doesNotMatch(result.stdout, /password: /)
    assert.doesNotMatch(result.stdout, / {2}created /)
    assert.deepEqual(await counts(t), TOTAL)
    assert.deepEqual(await readStats(t), statsBefore)
    for (const [email, password] of passwords) ok(await getStep(t, 'Wash & Fold', 1, basic(email, password)))
  })
})

describeEachDialect('demo seed over existing data (D-90)', (t) => {
  it('should leave a service that exists under another case as it is and create the rest', async () => {
    await createService(t, 'DRY CLEANING', [{ description: 'Our own first step' }])
    const report = await seedDemo(t.database, t.clock)
    assert.deepEqual(
      report.services.map((s) => [s.name, s.created]),
      DEMO_SERVICES.map((s) => [s.name, s.name !== 'Dry Cleaning'])
    )
    assert.ok(report.customers.every((c) => c.created && c.password !== null))
    const dry = (await readStats(t)).service_stats.find((s) => s.service[0]?.service_name === 'DRY CLEANING')!.service
    assert.equal(dry.length, 1)
    assert.equal(ok(await t.post('/v1/service/Dry%20Cleaning')).item.item_count, 0)
  })

  it('should add nothing when two seeds run at once', async () => {
    const before = await counts(t)
    const reports = await Promise.all([seedDemo(t.database, t.clock), seedDemo(t.database, t.clock)])
    for (const report of reports) {
      assert.ok(report.services.every((s) => !s.created))
      assert.ok(report.customers.every((c) => !c.created && c.password === null))
    }
    assert.deepEqual(await counts(t), before)
  })
})
