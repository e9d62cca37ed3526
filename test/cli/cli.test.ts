import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { sha256Hex } from '../../src/common/crypto.js'
import type { DatabaseConfig } from '../../src/config.js'
import { basic, DIALECTS, describeEachDialect } from '../helpers/app.js'
import { ok, problem } from '../helpers/assertions.js'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js'
import { CLI, databaseUrl, nodeArgs, run } from '../helpers/processes.js'

const KEY_LINE = /^(key_[0-9a-z]+):([A-Za-z0-9_-]{43,})\n$/

function urlOf(database: DatabaseConfig): string {
  return database.kind === 'sqlite' ? `sqlite:${database.file}` : database.url
}

for (const dialect of DIALECTS) {
  describe(`service-ordering migrate (D-04, D-90) [${dialect}]`, () => {
    let test: TestDatabase

    before(async () => {
      test = await createTestDatabase(dialect)
    })
    after(async () => {
      await test?.drop()
    })

    it('should apply every migration on a fresh database, say which, and do nothing the second time', async () => {
      const env = { DATABASE_URL: databaseUrl(test), DATA_DIR: test.dataDir }
      const first = await run(CLI, ['migrate'], env)
      assert.equal(first.code, 0, first.stderr)
      assert.equal(first.stderr, '')
      assert.match(first.stdout, /^applied 0001_platform, 0002_customers, 0003_catalogue, 0004_orders, 0005_outbox(, \d{4}_[a-z0-9_]+)*\n$/)
      const second = await run(CLI, ['migrate'], env)
      assert.equal(second.code, 0, second.stderr)
      assert.equal(second.stdout, 'schema is up to date\n')
      assert.equal(second.stderr, '')
    })
  })
}

describeEachDialect('service-ordering api-key (D-10, D-90)', (t) => {
  let env: Record<string, string>

  before(() => {
    env = { DATABASE_URL: urlOf(t.config.database), DATA_DIR: t.config.dataDir }
  })

  it('should print KEY_ID:SECRET once for a new staff key that works over HTTP at once', async () => {
    const result = await run(CLI, ['api-key', 'create', '--role', 'staff', '--name', 'ci robot'], env)
    assert.equal(result.code, 0, result.stderr)
    assert.equal(result.stderr, '')
    const match = KEY_LINE.exec(result.stdout)
    assert.ok(match, result.stdout)
    const authorization = basic(match[1]!, match[2]!)
    ok(await t.post('/v1/service/stats', undefined, { auth: authorization }))
  })

  it('should make app keys that are app keys', async () => {
    const result = await run(CLI, ['api-key', 'create', '--role', 'app', '--name', 'storefront'], env)
    const match = KEY_LINE.exec(result.stdout)
    assert.ok(match, result.stdout + result.stderr)
    problem(await t.post('/v1/service/stats', undefined, { auth: basic(match[1]!, match[2]!) }), 'forbidden')
  })

  it('should list keys with id, role, dates and name, never a secret or hash, and revoke at once', async () => {
    const created = await run(CLI, ['api-key', 'create', '--role', 'admin', '--name', 'to revoke'], env)
    const [, id, secret] = KEY_LINE.exec(created.stdout)!
    const authorization = basic(id!, secret!)
    ok(await t.post('/v1/service/stats', undefined, { auth: authorization }))

    const listed = await run(CLI, ['api-key', 'list'], env)
    assert.equal(listed.code, 0, listed.stderr)
    const lines = listed.stdout.trimEnd().split('\n')
    assert.equal(lines[0], 'KEY_ID                ROLE   CREATED                   REVOKED                   NAME')
    const row = lines.find((line) => line.startsWith(`${id} `))
    assert.ok(row, listed.stdout)
    assert.match(row, new RegExp(`^${id} +admin +\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z +- +to revoke$`))
    // The keys the test app made are listed too, with their names.
    assert.ok(lines.some((line) => /\bstaff\b.*test staff$/.test(line)))
    assert.ok(!listed.stdout.includes(secret!))
    assert.ok(!listed.stdout.includes(sha256Hex(secret!)))
    assert.doesNotMatch(listed.stdout, /[0-9a-f]{64}/)

    const revoked = await run(CLI, ['api-key', 'revoke', id!], env)
    assert.equal(revoked.code, 0, revoked.stderr)
    assert.equal(revoked.stdout, `revoked ${id}\n`)
    problem(await t.post('/v1/service/stats', undefined, { auth: authorization }), 'unauthenticated')

    const after = await run(CLI, ['api-key', 'list'], env)
    assert.match(after.stdout, new RegExp(`^${id} +admin +\\S+ +\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z +to revoke$`, 'm'))
  })

  it('should end quietly, with status 0, when the reader of its output has gone (`api-key list | true`)', () => {
    // `true` exits without reading: every line the command prints goes to a closed pipe (EPIPE).
    const command = [process.execPath, ...nodeArgs(CLI)].join(' ')
    const shell = spawnSync('bash', ['-c', `${command} api-key list | true; echo "status \${PIPESTATUS[0]}" >&2`], {
      env: { ...process.env, ...env },
      encoding: 'utf8'
    })
    assert.equal(shell.stderr, 'status 0\n')
  })

  it('should exit 1 revoking a key that does not exist or is already revoked', async () => {
    const result = await run(CLI, ['api-key', 'revoke', 'key_nosuchkey'], env)
    assert.equal(result.code, 1)
    assert.equal(result.stdout, '')
    assert.equal(result.stderr, 'service-ordering: no active API key key_nosuchkey\n')
  })
})

describe('service-ordering usage mistakes (D-90)', () => {
  let dataDir: string
  let usage: string

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'so-cli-'))
    const help = await run(CLI, ['--help'], {})
    assert.equal(help.code, 0)
    assert.equal(help.stderr, '')
    usage = help.stdout
    assert.match(usage, /^usage: service-ordering <command>\n/)
    assert.match(usage, /api-key create --role admin\|staff\|app --name NAME/)
  })
  after(() => {
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  for (const [args, message] of [
    [['api-key'], 'api-key needs create, list or revoke'],
    [['api-key', 'rotate'], 'api-key needs create, list or revoke'],
    [['api-key', 'create'], '--role must be admin, staff or app'],
    [['api-key', 'create', '--role', 'root', '--name', 'x'], '--role must be admin, staff or app'],
    [['api-key', 'create', '--role', 'staff'], '--name must be 1 to 100 characters'],
    [['api-key', 'create', '--role', 'staff', '--name', '  '], '--name must be 1 to 100 characters'],
    [['api-key', 'create', '--role', 'staff', '--name', 'n'.repeat(101)], '--name must be 1 to 100 characters'],
    [['api-key', 'revoke'], 'api-key revoke needs a KEY_ID'],
    [['nonsense'], 'unknown command nonsense'],
    // Words a command does not take are refused, not dropped (a name of two words unquoted).
    [['api-key', 'create', '--role', 'staff', '--name', 'front', 'desk'], 'unexpected argument desk'],
    [['api-key', 'list', 'extra'], 'unexpected argument extra'],
    [['api-key', 'revoke', 'key_a', 'key_b'], 'unexpected argument key_b'],
    [['outbox', 'list', 'extra'], 'unexpected argument extra'],
    [['outbox', 'retry', '1', '2'], 'unexpected argument 2'],
    [['outbox', 'list', '--limit', '1e2'], '--limit must be a whole number from 1 to 1000'],
    [['outbox', 'list', '--limit', '0x3'], '--limit must be a whole number from 1 to 1000']
  ] as const) {
    it(`should exit 2 with the usage for: ${args.join(' ').slice(0, 60)}`, async () => {
      // The database is never reached for a usage mistake: this file must not even be created.
      const file = path.join(dataDir, 'never.db')
      const result = await run(CLI, [...args], { DATABASE_URL: `sqlite:${file}`, DATA_DIR: dataDir })
      assert.equal(result.code, 2)
      assert.equal(result.stdout, '')
      assert.equal(result.stderr, `service-ordering: ${message}\n\n${usage}`)
      assert.equal(fs.existsSync(file), false)
    })
  }

  for (const args of [
    ['migrate', '--bogus'],
    ['migrate', 'extra'],
    ['worker', '--bogus'],
    ['worker', 'extra']
  ]) {
    it(`should exit 2 with the usage for ${args.join(' ')}: commands without options take none`, async () => {
      const file = path.join(dataDir, 'never.db')
      const result = await run(CLI, args, { DATABASE_URL: `sqlite:${file}`, DATA_DIR: dataDir })
      assert.equal(result.code, 2)
      assert.equal(result.stdout, '')
      assert.match(
        result.stderr,
        args[1]!.startsWith('--') ? /^service-ordering: Unknown option '--bogus'/ : /^service-ordering: Unexpected argument 'extra'/
      )
      assert.ok(result.stderr.endsWith(`\n\n${usage}`))
      assert.equal(fs.existsSync(file), false)
    })
  }

  it('should exit 2 with the usage for an unknown option, even with the database away', async () => {
    const result = await run(CLI, ['api-key', 'create', '--role', 'staff', '--name', 'x', '--force'], {
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nothing',
      DATA_DIR: dataDir
    })
    assert.equal(result.code, 2)
    assert.match(result.stderr, /^service-ordering: Unknown option '--force'/)
    assert.ok(result.stderr.endsWith(`\n\n${usage}`))
  })
})
