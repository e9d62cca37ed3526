import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import BetterSqlite3 from 'better-sqlite3'
import { decrypt } from '../../../src/common/crypto.js'
import { basic, DIALECTS } from '../../helpers/app.js'
import { createTestDatabase, type TestDatabase } from '../../helpers/databases.js'
import { Child, CLI, databaseUrl, MAIN, run } from '../../helpers/processes.js'

const KEY_ID = 'restore_admin'
const SECRET = 'r'.repeat(43)
const AUTH = basic(KEY_ID, SECRET)
const CARD_KEY = randomBytes(32)
const PICKUP = 1_893_456_000
const NUMBER = '4242424242424242'

async function call(url: string, route: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${url}${route}`, {
    method: 'POST',
    headers: { authorization: AUTH, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000)
  })
  return { status: response.status, json: await response.json() }
}

// D-93, SQLite only: the restore of a backup taken from a running server, and every refusal.
describe('service-ordering restore FILE (D-93) [sqlite]', { skip: !DIALECTS.includes('sqlite') }, () => {
  let database: TestDatabase
  let env: Record<string, string>
  let live: string
  let server: Child | null = null
  const work = () => path.join(database.dataDir, 'work')

  async function startServer(): Promise<string> {
    server = new Child(MAIN, [], { ...env, PORT: '0', BOOTSTRAP_API_KEY: `${KEY_ID}:${SECRET}`, DISPATCHER: 'off', LOG_LEVEL: 'info' })
    const line = await server.waitForLine((text) => text.includes('service-ordering is listening'))
    return (JSON.parse(line) as { url: string }).url
  }

  async function stopServer(): Promise<void> {
    server?.kill('SIGTERM')
    assert.equal(await server?.exit(), 0)
    server = null
  }

  /** The live database's files, read whole: a refusal must leave them as they were. */
  function liveState(): string {
    const files = fs
      .readdirSync(database.dataDir)
      .filter((name) => name !== 'work')
      .sort()
    return [
      ...files,
      ...files
        .filter((name) => name.startsWith('test.db'))
        .map((name) =>
          createHash('sha256')
            .update(fs.readFileSync(path.join(database.dataDir, name)))
            .digest('hex')
        )
    ].join('\n')
  }

  async function refuses(file: string, reason: RegExp, environment = env): Promise<void> {
    const result = await run(CLI, ['restore', file], environment)
    assert.equal(result.code, 1, result.stdout)
    assert.equal(result.stdout, '')
    assert.match(result.stderr, /^service-ordering: [^\n]+\n$/)
    assert.match(result.stderr, reason)
  }

  /** A copy of the backup changed by `change`, as a file of its own. */
  function variant(name: string, change: (db: BetterSqlite3.Database) => void): string {
    const file = path.join(work(), name)
    fs.copyFileSync(path.join(work(), 'backup.db'), file)
    const db = new BetterSqlite3(file)
    change(db)
    db.close()
    return file
  }

  const first = { customers: [] as string[], orders: [] as string[] }
  const second = { customers: [] as string[], orders: [] as string[] }

  before(async () => {
    database = await createTestDatabase('sqlite')
    live = database.database.kind === 'sqlite' ? database.database.file : ''
    env = { DATABASE_URL: databaseUrl(database), DATA_DIR: database.dataDir, CARD_ENCRYPTION_KEY: CARD_KEY.toString('base64') }
    fs.mkdirSync(work())
  })
  after(async () => {
    await server?.stop()
    await database?.drop()
  })

  it('should refuse while the server has the database open, and leave it serving', async () => {
    const url = await startServer()
    assert.equal((await call(url, '/v1/service/create', { service_name: 'Laundry', description: 'Picked up' })).status, 200)
    const add = async (into: typeof first, n: number) => {
      for (let i = 0; i < n; i++) {
        const customer = await call(url, '/v1/customer/create', { email: `c${into === first ? 1 : 2}.${i}@example.com`, zip: '10001' })
        assert.equal(customer.status, 200, JSON.stringify(customer.json))
        into.customers.push(customer.json.customer_id)
        const order = await call(url, '/v1/transaction/create', {
          customer_id: customer.json.customer_id,
          service_name: 'Laundry',
          pickup_timestamp: PICKUP,
          delivery_timestamp: PICKUP + 3600
        })
        assert.equal(order.status, 200, JSON.stringify(order.json))
        into.orders.push(order.json.transaction_id)
      }
    }
    await add(first, 3)
    const expiration = `12/${new Date().getUTCFullYear() + 2}`
    const creditcard = { cc_name: 'Ada Tester', cc_number: Number(NUMBER), cc_expiration: expiration, cc_cvv: 123, cc_zip: '02134' }
    const card = await call(url, '/v1/customer/update', { customer: { customer_id: first.customers[0], creditcard } })
    assert.equal(card.status, 200, JSON.stringify(card.json))
    // An online copy taken while the server serves (D-91).
    const backup = await run(CLI, ['backup', '--to', path.join(work(), 'backups')], env)
    assert.equal(backup.code, 0, backup.stderr)
    fs.copyFileSync((JSON.parse(backup.stdout) as { path: string }).path, path.join(work(), 'backup.db'))
    await add(second, 2)

    await refuses(path.join(work(), 'backup.db'), /is open in another process/)
    for (const id of [...first.orders, ...second.orders]) assert.equal((await call(url, `/v1/transaction/${id}`)).status, 200)
    assert.deepEqual(
      fs.readdirSync(database.dataDir).filter((name) => name.includes('replaced') || name.includes('restore')),
      []
    )
    await stopServer()
  })

  it('should refuse a truncated file, a newer schema and another card key, changing nothing', async () => {
    const before = liveState()
    const backup = fs.readFileSync(path.join(work(), 'backup.db'))
    const truncated = path.join(work(), 'truncated.db')
    fs.writeFileSync(truncated, backup.subarray(0, Math.floor(backup.length / 2)))
    await refuses(truncated, /truncated/)
    const text = path.join(work(), 'notes.txt')
    fs.writeFileSync(text, 'not a database\n'.repeat(20))
    await refuses(text, /not a SQLite database/)
    const newer = variant('newer.db', (db) =>
      db.prepare('insert into kysely_migration (name, timestamp) values (?, ?)').run('9999_from_the_future', new Date().toISOString())
    )
    await refuses(newer, /newer than this version \(migration 9999_from_the_future\)/)
    const foreign = variant('no-migrations.db', (db) => db.exec('drop table kysely_migration'))
    await refuses(foreign, /not a service-ordering database/)
    await refuses(path.join(work(), 'backup.db'), /another card key/, { ...env, CARD_ENCRYPTION_KEY: randomBytes(32).toString('base64') })
    const keyless = path.join(work(), 'keyless')
    await refuses(path.join(work(), 'backup.db'), /no card key/, { DATABASE_URL: env.DATABASE_URL!, DATA_DIR: keyless })
    assert.equal(fs.existsSync(path.join(keyless, 'card-key')), false)
    const otherKey = variant('other-key.db', (db) => db.prepare('update data_key set fingerprint = ?').run('0'.repeat(32)))
    await refuses(otherKey, /another card key/)
    assert.equal(liveState(), before)
  })

  it('should keep the replaced database, put the backup in place, and serve exactly the first set with its card', async () => {
    const result = await run(CLI, ['restore', path.join(work(), 'backup.db')], env)
    assert.equal(result.code, 0, result.stderr)
    assert.equal(result.stderr, '')
    assert.match(result.stdout, /^restored [^\n]+ the replaced database is kept as [^\n]+\.replaced-\d{8}T\d{6}Z\n$/)
    const kept = fs.readdirSync(database.dataDir).filter((name) => /^test\.db\.replaced-\d{8}T\d{6}Z$/.test(name))
    assert.equal(kept.length, 1)
    // The kept database is whole on its own: the orders made after the backup are in it.
    const replaced = new BetterSqlite3(path.join(database.dataDir, kept[0]!), { readonly: true })
    assert.equal((replaced.prepare('select count(*) from orders').pluck().get() as number) >= 5, true)
    replaced.close()

    const url = await startServer()
    for (const id of first.orders) assert.equal((await call(url, `/v1/transaction/${id}`)).status, 200)
    for (const id of first.customers) assert.equal((await call(url, `/v1/customer/${id}`)).status, 200)
    for (const id of second.orders) assert.equal((await call(url, `/v1/transaction/${id}`)).status, 404)
    for (const id of second.customers) assert.equal((await call(url, `/v1/customer/${id}`)).status, 404)
    await stopServer()

    const db = new BetterSqlite3(live, { readonly: true })
    const row = db.prepare('select card_last4, card_ciphertext from customers where id = ?').get(first.customers[0]) as {
      card_last4: string
      card_ciphertext: string
    }
    db.close()
    assert.equal(row.card_last4, '4242')
    assert.equal((JSON.parse(decrypt(CARD_KEY, row.card_ciphertext)) as { number: string }).number, NUMBER)
  })
})

describe('service-ordering restore FILE on PostgreSQL (D-93)', () => {
  it('should say in one line to use pg_restore, and exit non-zero', async () => {
    const result = await run(CLI, ['restore', 'backup.dump'], {
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
      DATA_DIR: '/nonexistent'
    })
    assert.equal(result.code, 1, result.stdout)
    assert.equal(result.stdout, '')
    assert.match(result.stderr, /^service-ordering: [^\n]*pg_restore[^\n]*\n$/)
  })
})
