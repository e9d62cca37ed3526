import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import BetterSqlite3 from 'better-sqlite3'
import { DIALECTS, TestApp } from '../../helpers/app.js'
import { createTestDatabase, type TestDatabase } from '../../helpers/databases.js'
import { createCustomer, createOrder, createService } from '../../helpers/factories.js'
import { Child, CLI, databaseUrl, run } from '../../helpers/processes.js'

const FINAL_DB = /^service-ordering-\d{8}T\d{6}Z\.db$/

interface Printed {
  path: string
  customers: number
  orders: number
  receipt_lines: number
}

function printed(stdout: string): Printed {
  const lines = stdout.split('\n').filter((line) => line !== '')
  assert.equal(lines.length, 1, stdout)
  return JSON.parse(lines[0]!) as Printed
}

function tableRows(file: string, sql: string): unknown[] {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true })
  try {
    return db.prepare(sql).all()
  } finally {
    db.close()
  }
}

function countsOf(file: string): Omit<Printed, 'path'> {
  const count = (table: string) => (tableRows(file, `SELECT count(*) AS n FROM ${table}`)[0] as { n: number }).n
  return { customers: count('customers'), orders: count('orders'), receipt_lines: count('receipt_lines') }
}

function databaseFile(t: TestApp): string {
  assert.equal(t.config.database.kind, 'sqlite')
  return t.config.database.kind === 'sqlite' ? t.config.database.file : ''
}

function temporaryDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'so-backup-'))
}

describe('service-ordering backup on SQLite (D-91)', () => {
  const t = new TestApp('sqlite')
  let env: Record<string, string>
  const dirs: string[] = []
  const newDir = () => {
    const dir = temporaryDir()
    dirs.push(dir)
    return dir
  }

  before(async () => {
    await t.start()
    env = { DATABASE_URL: `sqlite:${databaseFile(t)}`, DATA_DIR: t.config.dataDir }
    await createService(t, 'Wash', [{ description: 'Received' }, { description: 'Washed' }])
    for (let i = 0; i < 3; i++) {
      const customer = await createCustomer(t)
      await createOrder(t, customer.id, 'Wash')
    }
    // A card key file in DATA_DIR, as outside production: it must not travel with the backup.
    fs.writeFileSync(path.join(t.config.dataDir, 'card-key'), `${Buffer.alloc(32, 7).toString('base64')}\n`, { mode: 0o600 })
  })
  after(async () => {
    await t.stop()
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
  })

  it('should write a sound copy with the same rows under the final name and print its counts', async () => {
    const dir = newDir()
    const result = await run(CLI, ['backup', '--to', dir], env)
    assert.equal(result.code, 0, result.stderr)
    assert.equal(result.stderr, '')
    const out = printed(result.stdout)
    assert.equal(path.dirname(out.path), dir)
    assert.match(path.basename(out.path), FINAL_DB)
    // Only the backup itself: no temporary, journal or key file beside it.
    assert.deepEqual(fs.readdirSync(dir), [path.basename(out.path)])
    assert.deepEqual(tableRows(out.path, 'PRAGMA integrity_check'), [{ integrity_check: 'ok' }])
    const live = countsOf(databaseFile(t))
    assert.deepEqual({ customers: out.customers, orders: out.orders, receipt_lines: out.receipt_lines }, live)
    assert.deepEqual(countsOf(out.path), live)
    assert.equal(live.orders, 3)
    const ids = 'SELECT id FROM orders ORDER BY id'
    assert.deepEqual(tableRows(out.path, ids), tableRows(databaseFile(t), ids))
    // Self-contained: no WAL needed to read it, and the card key's text is nowhere in it.
    assert.deepEqual(tableRows(out.path, 'PRAGMA journal_mode'), [{ journal_mode: 'delete' }])
    const key = fs.readFileSync(path.join(t.config.dataDir, 'card-key'), 'utf8').trim()
    assert.equal(fs.readFileSync(out.path).includes(Buffer.from(key)), false)
  })

  it('should take a consistent copy while orders are being written, holding every order acknowledged before it', async () => {
    const dir = newDir()
    const customer = await createCustomer(t)
    const acknowledged: string[] = []
    let writing = true
    const writes = (async () => {
      while (writing) acknowledged.push((await createOrder(t, customer.id, 'Wash')).transaction_id)
    })()
    // The backup starts once writes are going on, and they go on until it has ended.
    while (acknowledged.length < 5) await new Promise((resolve) => setImmediate(resolve))
    const before = [...acknowledged]
    const child = new Child(CLI, ['backup', '--to', dir], env)
    child.endInput()
    const code = await child.exit(90_000)
    const during = acknowledged.length
    writing = false
    await writes
    assert.equal(code, 0, child.stderr.join('\n'))
    const out = printed(child.stdout.join('\n'))
    assert.deepEqual(tableRows(out.path, 'PRAGMA integrity_check'), [{ integrity_check: 'ok' }])
    assert.deepEqual(countsOf(out.path), { customers: out.customers, orders: out.orders, receipt_lines: out.receipt_lines })
    const copied = new Set(
      (tableRows(out.path, 'SELECT public_id AS transaction_id FROM orders') as Array<{ transaction_id: string }>).map(
        (r) => r.transaction_id
      )
    )
    for (const id of before) assert.ok(copied.has(id), `order ${id}, acknowledged before the backup, is in it`)
    // One snapshot: the orders it holds are the first ones written, with nothing after a gap.
    const inCopy = acknowledged.filter((id) => copied.has(id))
    assert.deepEqual(inCopy, acknowledged.slice(0, inCopy.length))
    assert.ok(during > before.length, 'writes went on while the backup ran')
  })

  it('should say in one line, with a non-zero exit, that a directory cannot be written', async () => {
    const dir = newDir()
    const file = path.join(dir, 'a-file')
    fs.writeFileSync(file, '')
    const result = await run(CLI, ['backup', '--to', path.join(file, 'backups')], env)
    assert.equal(result.code, 1)
    assert.equal(result.stdout, '')
    assert.match(result.stderr, /^service-ordering: cannot back up into .*a-file\/backups: .+\n$/)
  })

  it('should clean up temporary files of a backup that crashed, and write into DATA_DIR/backups by default', async () => {
    const dir = path.join(t.config.dataDir, 'backups')
    fs.mkdirSync(dir, { recursive: true })
    // pid 2^22 + 1 is above Linux's pid_max: no process has it.
    const stale = path.join(dir, '.service-ordering-20260101T000000Z.4194305.tmp')
    fs.writeFileSync(stale, 'half a copy')
    const result = await run(CLI, ['backup'], env)
    assert.equal(result.code, 0, result.stderr)
    const out = printed(result.stdout)
    assert.equal(path.dirname(out.path), dir)
    assert.deepEqual(fs.readdirSync(dir), [path.basename(out.path)])
  })
})

if (DIALECTS.includes('postgres')) {
  describe('service-ordering backup on PostgreSQL (D-91)', () => {
    let test: TestDatabase
    let env: Record<string, string>
    const dir = temporaryDir()

    before(async () => {
      test = await createTestDatabase('postgres')
      env = { DATABASE_URL: databaseUrl(test), DATA_DIR: test.dataDir }
      const migrated = await run(CLI, ['migrate'], env)
      assert.equal(migrated.code, 0, migrated.stderr)
    })
    after(async () => {
      await test?.drop()
      fs.rmSync(dir, { recursive: true, force: true })
    })

    it('should say in one line, with a non-zero exit, that pg_dump is needed when it is not on PATH', async () => {
      const empty = temporaryDir()
      try {
        const result = await run(CLI, ['backup', '--to', dir], { ...env, PATH: empty })
        assert.equal(result.code, 1)
        assert.equal(result.stdout, '')
        assert.equal(result.stderr, 'service-ordering: a PostgreSQL backup needs the PostgreSQL client tools (pg_dump) on PATH\n')
        assert.deepEqual(fs.readdirSync(dir), [])
      } finally {
        fs.rmSync(empty, { recursive: true, force: true })
      }
    })

    it('should hand pg_dump the password in its environment, never on its command line', async () => {
      const bin = temporaryDir()
      const out = temporaryDir()
      try {
        // A stand-in pg_dump that records what it was given and writes an empty dump to --file.
        const record = path.join(bin, 'record')
        fs.writeFileSync(
          path.join(bin, 'pg_dump'),
          `#!/bin/sh\nprintf '%s\\n' "$*" "$PGPASSWORD" > ${record}\nwhile [ "$1" != --file ]; do shift; done\n: > "$2"\n`,
          { mode: 0o755 }
        )
        const url = new URL(databaseUrl(test))
        url.password = 's3cret-pw'
        const result = await run(CLI, ['backup', '--to', out], { ...env, DATABASE_URL: url.href, PATH: bin })
        assert.equal(result.code, 0, result.stderr)
        const [args, password] = fs.readFileSync(record, 'utf8').split('\n')
        assert.doesNotMatch(args!, /s3cret-pw/)
        assert.match(args!, /--format=custom --snapshot=\S+ --file \S+ --dbname postgres:\/\//)
        assert.equal(password, 's3cret-pw')
      } finally {
        fs.rmSync(bin, { recursive: true, force: true })
        fs.rmSync(out, { recursive: true, force: true })
      }
    })

    const pgDumpHere = (process.env.PATH ?? '').split(path.delimiter).some((p) => p !== '' && fs.existsSync(path.join(p, 'pg_dump')))
    it('should write a custom-format dump under the final name when pg_dump is there', {
      skip: !pgDumpHere && 'no pg_dump on PATH'
    }, async () => {
      const result = await run(CLI, ['backup', '--to', dir], env)
      assert.equal(result.code, 0, result.stderr)
      const out = printed(result.stdout)
      assert.match(path.basename(out.path), /^service-ordering-\d{8}T\d{6}Z\.dump$/)
      assert.deepEqual(fs.readdirSync(dir), [path.basename(out.path)])
      // pg_dump's custom format starts with PGDMP.
      assert.equal(fs.readFileSync(out.path).subarray(0, 5).toString(), 'PGDMP')
      assert.deepEqual(
        { customers: out.customers, orders: out.orders, receipt_lines: out.receipt_lines },
        { customers: 0, orders: 0, receipt_lines: 0 }
      )
    })
  })
}
