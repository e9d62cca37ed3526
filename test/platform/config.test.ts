import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, it } from 'node:test'
import { type Config, ConfigError, loadConfig, withoutPassword } from '../../src/config.js'
import { postgresAdminUrl } from '../helpers/databases.js'
import { CLI, MAIN, run } from '../helpers/processes.js'

const adminUrl = await postgresAdminUrl()

const CARD_KEY = randomBytes(32).toString('base64')
const WEBHOOK_SECRET = `whsec_${randomBytes(24).toString('base64')}`

/** The message of the ConfigError loadConfig throws for `env`. */
function errorOf(env: Record<string, string>): string {
  try {
    loadConfig(env)
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`)
    return error.message
  }
  assert.fail(`expected ${JSON.stringify(env)} to be refused`)
}

/** Picks the named fields of a config, for comparisons that survive new variables. */
function pick<K extends keyof Config>(config: Config, keys: readonly K[]): Pick<Config, K> {
  return Object.fromEntries(keys.map((k) => [k, config[k]])) as Pick<Config, K>
}

describe('loadConfig defaults (D-02)', () => {
  it('should give every variable its documented default', () => {
    const config = loadConfig({})
    assert.deepEqual(
      pick(config, [
        'port',
        'host',
        'dataDir',
        'database',
        'timeZone',
        'publicUrl',
        'shopName',
        'smtpUrl',
        'smsWebhookUrl',
        'webhookUrl',
        'webhookSecret',
        'bootstrapApiKey',
        'cardEncryptionKey',
        'logLevel',
        'trustProxy',
        'dispatcher',
        'production',
        'sqliteSynchronous',
        'databasePoolMax',
        'statementTimeoutMs'
      ]),
      {
        port: 3000,
        host: '127.0.0.1',
        dataDir: path.resolve('data'),
        database: { kind: 'sqlite', file: path.resolve('data', 'service-ordering.db') },
        timeZone: 'UTC',
        publicUrl: 'http://localhost:3000',
        shopName: 'Our shop',
        smtpUrl: null,
        smsWebhookUrl: null,
        webhookUrl: null,
        webhookSecret: null,
        bootstrapApiKey: null,
        cardEncryptionKey: null,
        logLevel: 'info',
        trustProxy: false,
        dispatcher: true,
        production: false,
        sqliteSynchronous: 'FULL',
        databasePoolMax: 10,
        statementTimeoutMs: 10_000
      }
    )
  })

  it('should treat empty and blank values as unset', () => {
    const config = loadConfig({ PORT: '', HOST: '   ', DATABASE_URL: '', LOG_LEVEL: ' ', BOOTSTRAP_API_KEY: '' })
    assert.deepEqual(pick(config, ['port', 'host', 'logLevel', 'bootstrapApiKey']), {
      port: 3000,
      host: '127.0.0.1',
      logLevel: 'info',
      bootstrapApiKey: null
    })
  })

  it('should freeze the configuration', () => {
    assert.ok(Object.isFrozen(loadConfig({})))
  })

  it('should not read process.env when given an environment', () => {
    const saved = process.env.PORT
    process.env.PORT = 'not a port'
    try {
      assert.equal(loadConfig({}).port, 3000)
    } finally {
      if (saved === undefined) delete process.env.PORT
      else process.env.PORT = saved
    }
  })
})

describe('loadConfig accepted values (D-02)', () => {
  const cases: Array<[string, Record<string, string>, Partial<Config>]> = [
    ['PORT 0 (any free port)', { PORT: '0' }, { port: 0 }],
    ['PORT 65535', { PORT: '65535' }, { port: 65535, publicUrl: 'http://localhost:65535' }],
    ['PORT with spaces around it', { PORT: ' 8080 ' }, { port: 8080 }],
    ['HOST 0.0.0.0', { HOST: '0.0.0.0' }, { host: '0.0.0.0' }],
    ['HOST ::', { HOST: '::' }, { host: '::' }],
    ['HOST a name', { HOST: 'api.internal' }, { host: 'api.internal' }],
    ['SHOP_NAME, trimmed (D-63)', { SHOP_NAME: '  Wash & Fold ' }, { shopName: 'Wash & Fold' }],
    ['SHOP_NAME of 100 characters', { SHOP_NAME: 'é'.repeat(100) }, { shopName: 'é'.repeat(100) }],
    [
      'DATA_DIR',
      { DATA_DIR: '/var/lib/so' },
      { dataDir: '/var/lib/so', database: { kind: 'sqlite', file: '/var/lib/so/service-ordering.db' } }
    ],
    ['DATABASE_URL sqlite:PATH', { DATABASE_URL: 'sqlite:/tmp/x.db' }, { database: { kind: 'sqlite', file: '/tmp/x.db' } }],
    ['DATABASE_URL sqlite:///PATH', { DATABASE_URL: 'sqlite:///tmp/y.db' }, { database: { kind: 'sqlite', file: '/tmp/y.db' } }],
    [
      'DATABASE_URL sqlite: relative',
      { DATABASE_URL: 'sqlite:rel/z.db' },
      { database: { kind: 'sqlite', file: path.resolve('rel/z.db') } }
    ],
    ['DATABASE_URL sqlite::memory:', { DATABASE_URL: 'sqlite::memory:' }, { database: { kind: 'sqlite', file: ':memory:' } }],
    [
      'DATABASE_URL postgres://',
      { DATABASE_URL: 'postgres://u:p@db:5432/so' },
      { database: { kind: 'postgres', url: 'postgres://u:p@db:5432/so' } }
    ],
    ['DATABASE_URL postgresql://', { DATABASE_URL: 'postgresql://db/so' }, { database: { kind: 'postgres', url: 'postgresql://db/so' } }],
    ['TIME_ZONE America/New_York', { TIME_ZONE: 'America/New_York' }, { timeZone: 'America/New_York' }],
    ['TIME_ZONE in another case', { TIME_ZONE: 'utc' }, { timeZone: 'UTC' }],
    ['PUBLIC_URL without its trailing slash', { PUBLIC_URL: 'https://shop.example.com/' }, { publicUrl: 'https://shop.example.com' }],
    ['SMTP_URL smtps://', { SMTP_URL: 'smtps://user:pw@mail.example.com:465' }, { smtpUrl: 'smtps://user:pw@mail.example.com:465' }],
    ['SMS_WEBHOOK_URL', { SMS_WEBHOOK_URL: 'https://sms.example.com/send' }, { smsWebhookUrl: 'https://sms.example.com/send' }],
    [
      'WEBHOOK_URL with WEBHOOK_SECRET',
      { WEBHOOK_URL: 'https://hooks.example.com/x', WEBHOOK_SECRET },
      { webhookUrl: 'https://hooks.example.com/x', webhookSecret: WEBHOOK_SECRET }
    ],
    [
      'BOOTSTRAP_API_KEY',
      { BOOTSTRAP_API_KEY: `ops-key_1:${'s'.repeat(32)}` },
      { bootstrapApiKey: { id: 'ops-key_1', secret: 's'.repeat(32) } }
    ],
    ['CARD_ENCRYPTION_KEY', { CARD_ENCRYPTION_KEY: CARD_KEY }, { cardEncryptionKey: Buffer.from(CARD_KEY, 'base64') }],
    ['NODE_ENV=production with a card key', { NODE_ENV: 'production', CARD_ENCRYPTION_KEY: CARD_KEY }, { production: true }],
    ['LOG_LEVEL in upper case', { LOG_LEVEL: 'DEBUG' }, { logLevel: 'debug' }],
    ['LOG_LEVEL silent', { LOG_LEVEL: 'silent' }, { logLevel: 'silent' }],
    ['TRUST_PROXY on', { TRUST_PROXY: 'on' }, { trustProxy: true }],
    ['TRUST_PROXY off', { TRUST_PROXY: 'false' }, { trustProxy: false }],
    ['TRUST_PROXY a hop count', { TRUST_PROXY: '2' }, { trustProxy: 2 }],
    [
      'TRUST_PROXY addresses and ranges',
      { TRUST_PROXY: '10.0.0.1, 192.168.0.0/16,fd00::/8' },
      { trustProxy: '10.0.0.1,192.168.0.0/16,fd00::/8' }
    ],
    ['TRUST_PROXY a named range', { TRUST_PROXY: 'loopback' }, { trustProxy: 'loopback' }],
    ['DISPATCHER off', { DISPATCHER: 'off' }, { dispatcher: false }],
    ['DISPATCHER yes', { DISPATCHER: 'YES' }, { dispatcher: true }],
    ['SQLITE_SYNCHRONOUS normal', { SQLITE_SYNCHRONOUS: 'normal' }, { sqliteSynchronous: 'NORMAL' }],
    ['DATABASE_POOL_MAX', { DATABASE_POOL_MAX: '50' }, { databasePoolMax: 50 }],
    ['STATEMENT_TIMEOUT_MS 0 (none)', { STATEMENT_TIMEOUT_MS: '0' }, { statementTimeoutMs: 0 }],
    [
      'HTTP_MAX_CONNECTIONS_PER_ADDRESS unset: a quarter',
      { HTTP_MAX_CONNECTIONS: '1000' },
      { httpMaxConnections: 1000, httpMaxConnectionsPerAddress: 250 }
    ],
    [
      'HTTP_MAX_CONNECTIONS_PER_ADDRESS unset behind a proxy: all',
      { TRUST_PROXY: 'on', HTTP_MAX_CONNECTIONS: '20' },
      { httpMaxConnectionsPerAddress: 20 }
    ],
    ['HTTP_MAX_CONNECTIONS_PER_ADDRESS unset with one connection', { HTTP_MAX_CONNECTIONS: '1' }, { httpMaxConnectionsPerAddress: 1 }],
    [
      'HTTP_MAX_CONNECTIONS_PER_ADDRESS',
      { HTTP_MAX_CONNECTIONS: '20', HTTP_MAX_CONNECTIONS_PER_ADDRESS: '20' },
      { httpMaxConnectionsPerAddress: 20 }
    ]
  ]
  for (const [label, env, expected] of cases) {
    it(`should accept ${label}`, () => {
      const config = loadConfig(env)
      assert.deepEqual(pick(config, Object.keys(expected) as Array<keyof Config>), expected)
    })
  }
})

describe('loadConfig refusals: one line naming the variable and what it accepts (D-01)', () => {
  const cases: Array<[string, Record<string, string>, string]> = [
    ['PORT that is not a number', { PORT: 'abc' }, 'PORT must be a whole number from 0 to 65535 (got "abc")'],
    ['PORT out of range', { PORT: '65536' }, 'PORT must be a whole number from 0 to 65535 (got "65536")'],
    ['PORT negative', { PORT: '-1' }, 'PORT must be a whole number from 0 to 65535 (got "-1")'],
    ['PORT with a fraction', { PORT: '80.5' }, 'PORT must be a whole number from 0 to 65535 (got "80.5")'],
    ['HOST with a space', { HOST: 'my host' }, 'HOST must be an IP address or a host name such as 0.0.0.0 or localhost (got "my host")'],
    ['HOST with a scheme', { HOST: 'http://x' }, 'HOST must be an IP address or a host name such as 0.0.0.0 or localhost (got "http://x")'],
    [
      'SHOP_NAME of 101 characters',
      { SHOP_NAME: 'x'.repeat(101) },
      `SHOP_NAME must be 1 to 100 characters on one line (got "${'x'.repeat(101)}")`
    ],
    ['SHOP_NAME of two lines', { SHOP_NAME: 'Wash\nFold' }, 'SHOP_NAME must be 1 to 100 characters on one line (got "Wash\\nFold")'],
    [
      'DATABASE_URL of another engine',
      { DATABASE_URL: 'mysql://db/so' },
      'DATABASE_URL must be sqlite:PATH, sqlite::memory: or a postgres:// URL (got "mysql://db/so")'
    ],
    [
      'DATABASE_URL sqlite: without a path',
      { DATABASE_URL: 'sqlite:' },
      'DATABASE_URL must be sqlite:PATH, sqlite::memory: or a postgres:// URL (got "sqlite:")'
    ],
    [
      'DATABASE_URL a bare path',
      { DATABASE_URL: '/tmp/x.db' },
      'DATABASE_URL must be sqlite:PATH, sqlite::memory: or a postgres:// URL (got "/tmp/x.db")'
    ],
    [
      'DATABASE_URL postgres:// that is not a URL',
      { DATABASE_URL: 'postgres://db:port/so' },
      'DATABASE_URL must be sqlite:PATH, sqlite::memory: or a valid postgres:// URL (got "postgres://db:port/so")'
    ],
    [
      'TIME_ZONE unknown',
      { TIME_ZONE: 'Mars/Olympus' },
      'TIME_ZONE must be an IANA time zone such as UTC or America/New_York (got "Mars/Olympus")'
    ],
    [
      'PUBLIC_URL not a URL',
      { PUBLIC_URL: 'shop.example.com' },
      'PUBLIC_URL must be a URL starting with http: or https: (got "shop.example.com")'
    ],
    [
      'PUBLIC_URL of another scheme',
      { PUBLIC_URL: 'ftp://shop' },
      'PUBLIC_URL must be a URL starting with http: or https: (got "ftp://shop")'
    ],
    ['SMTP_URL of another scheme', { SMTP_URL: 'http://mail' }, 'SMTP_URL must be a URL starting with smtp: or smtps: (got "http://mail")'],
    ['SMS_WEBHOOK_URL not a URL', { SMS_WEBHOOK_URL: 'nope' }, 'SMS_WEBHOOK_URL must be a URL starting with http: or https: (got "nope")'],
    [
      'WEBHOOK_URL not a URL',
      { WEBHOOK_URL: 'nope', WEBHOOK_SECRET },
      'WEBHOOK_URL must be a URL starting with http: or https: (got "nope")'
    ],
    [
      'WEBHOOK_URL without WEBHOOK_SECRET',
      { WEBHOOK_URL: 'https://hooks.example.com' },
      'WEBHOOK_SECRET must be set when WEBHOOK_URL is set (a whsec_… secret of at least 24 bytes)'
    ],
    [
      'WEBHOOK_SECRET too short',
      { WEBHOOK_SECRET: 'whsec_abc' },
      'WEBHOOK_SECRET must be a base64 secret of at least 24 bytes, optionally prefixed whsec_'
    ],
    [
      'BOOTSTRAP_API_KEY without a colon',
      { BOOTSTRAP_API_KEY: 'justanid' },
      'BOOTSTRAP_API_KEY must be KEY_ID:SECRET, the id 3-64 characters of A-Z a-z 0-9 _ -, the secret at least 32 characters'
    ],
    [
      'BOOTSTRAP_API_KEY with a short secret',
      { BOOTSTRAP_API_KEY: 'ops:short' },
      'BOOTSTRAP_API_KEY must be KEY_ID:SECRET, the id 3-64 characters of A-Z a-z 0-9 _ -, the secret at least 32 characters'
    ],
    [
      'BOOTSTRAP_API_KEY with an id holding @',
      { BOOTSTRAP_API_KEY: `a@b:${'s'.repeat(32)}` },
      'BOOTSTRAP_API_KEY must be KEY_ID:SECRET, the id 3-64 characters of A-Z a-z 0-9 _ -, the secret at least 32 characters'
    ],
    [
      'CARD_ENCRYPTION_KEY of 16 bytes',
      { CARD_ENCRYPTION_KEY: randomBytes(16).toString('base64') },
      'CARD_ENCRYPTION_KEY must be 32 bytes written in base64 (44 characters)'
    ],
    [
      'CARD_ENCRYPTION_KEY not base64',
      { CARD_ENCRYPTION_KEY: '!'.repeat(44) },
      'CARD_ENCRYPTION_KEY must be 32 bytes written in base64 (44 characters)'
    ],
    [
      'NODE_ENV=production without a card key',
      { NODE_ENV: 'production' },
      'CARD_ENCRYPTION_KEY must be set when NODE_ENV=production (32 bytes written in base64)'
    ],
    ['LOG_LEVEL unknown', { LOG_LEVEL: 'verbose' }, 'LOG_LEVEL must be fatal, error, warn, info, debug, trace, silent (got "verbose")'],
    [
      'TRUST_PROXY a word',
      { TRUST_PROXY: 'maybe' },
      'TRUST_PROXY must be off, on, a hop count, or a comma-separated list of addresses or CIDR ranges (got "maybe")'
    ],
    [
      'TRUST_PROXY hex letters that are no address',
      { TRUST_PROXY: 'abc' },
      'TRUST_PROXY must be off, on, a hop count, or a comma-separated list of addresses or CIDR ranges (got "abc")'
    ],
    [
      'TRUST_PROXY a range with a bad prefix',
      { TRUST_PROXY: '10.0.0.0/33' },
      'TRUST_PROXY must be off, on, a hop count, or a comma-separated list of addresses or CIDR ranges (got "10.0.0.0/33")'
    ],
    ['DISPATCHER unknown', { DISPATCHER: 'sometimes' }, 'DISPATCHER must be on or off (got "sometimes")'],
    ['SQLITE_SYNCHRONOUS unknown', { SQLITE_SYNCHRONOUS: 'OFF' }, 'SQLITE_SYNCHRONOUS must be FULL or NORMAL (got "OFF")'],
    ['DATABASE_POOL_MAX 0', { DATABASE_POOL_MAX: '0' }, 'DATABASE_POOL_MAX must be a whole number from 1 to 1000 (got "0")'],
    [
      'STATEMENT_TIMEOUT_MS text',
      { STATEMENT_TIMEOUT_MS: '10s' },
      'STATEMENT_TIMEOUT_MS must be a whole number from 0 to 3600000 (got "10s")'
    ],
    [
      'HTTP_MAX_CONNECTIONS_PER_ADDRESS 0',
      { HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0' },
      'HTTP_MAX_CONNECTIONS_PER_ADDRESS must be a whole number from 1 to HTTP_MAX_CONNECTIONS (1000) (got "0")'
    ],
    [
      'HTTP_MAX_CONNECTIONS_PER_ADDRESS above HTTP_MAX_CONNECTIONS',
      { HTTP_MAX_CONNECTIONS: '20', HTTP_MAX_CONNECTIONS_PER_ADDRESS: '21' },
      'HTTP_MAX_CONNECTIONS_PER_ADDRESS must be a whole number from 1 to HTTP_MAX_CONNECTIONS (20) (got "21")'
    ],
    [
      'HTTP_MAX_CONNECTIONS_PER_ADDRESS a share',
      { HTTP_MAX_CONNECTIONS_PER_ADDRESS: '10%' },
      'HTTP_MAX_CONNECTIONS_PER_ADDRESS must be a whole number from 1 to HTTP_MAX_CONNECTIONS (1000) (got "10%")'
    ]
  ]
  for (const [label, env, message] of cases) {
    it(`should refuse ${label}`, () => {
      const got = errorOf(env)
      assert.equal(got, message)
      assert.ok(!got.includes('\n'), 'one line')
    })
  }

  it('should never echo a secret: not the bootstrap secret, the card key or the webhook secret', () => {
    const secret = 'TOPSECRET'.repeat(2)
    assert.ok(!errorOf({ BOOTSTRAP_API_KEY: `ok_id:${secret}` }).includes(secret))
    assert.ok(!errorOf({ CARD_ENCRYPTION_KEY: secret }).includes(secret))
    assert.ok(!errorOf({ WEBHOOK_SECRET: secret }).includes(secret))
  })

  it('should hide the password of a URL it echoes', () => {
    assert.equal(
      errorOf({ DATABASE_URL: 'mysql://admin:hunter2@db/so' }),
      'DATABASE_URL must be sqlite:PATH, sqlite::memory: or a postgres:// URL (got "mysql://admin:***@db/so")'
    )
    assert.equal(
      errorOf({ SMTP_URL: 'https://mailer:p4ss:w0rd@mail.example.com' }),
      'SMTP_URL must be a URL starting with smtp: or smtps: (got "https://mailer:***@mail.example.com")'
    )
    assert.ok(!errorOf({ DATABASE_URL: 'postgres://so:hunter2@db:port/so' }).includes('hunter2'))
    // An unencoded @ in the password, and credentials in the query string.
    assert.equal(
      errorOf({ REDIS_URL: 'http://user:my@secret@host:6379' }),
      'REDIS_URL must be a URL starting with redis: or rediss: (got "http://user:***@host:6379")'
    )
    assert.equal(
      errorOf({ DATABASE_URL: 'mysql://h/db?user=so&password=hunter2&Token=t0k&ssl=true' }),
      'DATABASE_URL must be sqlite:PATH, sqlite::memory: or a postgres:// URL (got "mysql://h/db?user=so&password=***&Token=***&ssl=true")'
    )
    assert.equal(
      errorOf({ SMS_WEBHOOK_URL: 'ftp://sms.example/send?key=k3y&access_token=abc&X-Amz-Signature=s1g&to=all' }),
      'SMS_WEBHOOK_URL must be a URL starting with http: or https: (got "ftp://sms.example/send?key=***&access_token=***&X-Amz-Signature=***&to=all")'
    )
  })
})

describe('a bad configuration stops the process (D-01)', () => {
  for (const [env, line] of [
    [{ PORT: 'abc' }, 'service-ordering: invalid configuration: PORT must be a whole number from 0 to 65535 (got "abc")'],
    [
      { DATABASE_URL: 'mysql://db/so' },
      'service-ordering: invalid configuration: DATABASE_URL must be sqlite:PATH, sqlite::memory: or a postgres:// URL (got "mysql://db/so")'
    ],
    [
      { TIME_ZONE: 'Nowhere/Land' },
      'service-ordering: invalid configuration: TIME_ZONE must be an IANA time zone such as UTC or America/New_York (got "Nowhere/Land")'
    ]
  ] as const) {
    it(`should exit 1 printing exactly one line for ${Object.keys(env)[0]}`, async () => {
      // DATA_DIR points nowhere useful: the process must stop before touching anything.
      const result = await run(MAIN, [], { ...env, DATA_DIR: '/nonexistent/so-config-test' })
      assert.equal(result.code, 1)
      assert.equal(result.stdout, '')
      assert.equal(result.stderr, `${line}\n`)
    })
  }

  it('should exit 1 with one line, and no stack, when the database cannot be reached', async () => {
    const result = await run(MAIN, [], {
      PORT: '0',
      DATABASE_URL: 'postgres://postgres:not-printed@127.0.0.1:1/nothing',
      DATA_DIR: '/nonexistent/so-config-test'
    })
    assert.equal(result.code, 1)
    assert.equal(result.stdout, '')
    assert.equal(
      result.stderr,
      'service-ordering: could not start: the PostgreSQL database of DATABASE_URL (postgres://postgres:***@127.0.0.1:1/nothing) cannot be used: connect ECONNREFUSED 127.0.0.1:1\n'
    )
  })

  it('should name DATABASE_URL when PostgreSQL refuses the database (D-01)', {
    skip: adminUrl === null && 'no PostgreSQL here'
  }, async () => {
    const missing = new URL(adminUrl!)
    missing.pathname = '/so_config_test_no_such_database'
    const result = await run(MAIN, [], { PORT: '0', DATABASE_URL: missing.href, DATA_DIR: '/nonexistent/so-config-test' })
    assert.equal(result.code, 1)
    assert.equal(
      result.stderr,
      `service-ordering: could not start: the PostgreSQL database of DATABASE_URL (${withoutPassword(missing.href)}) cannot be used: database "so_config_test_no_such_database" does not exist\n`
    )
  })

  // Node's recursive mkdir loops for ever where mkdir answers ENOENT under an existing parent.
  it('should exit 1 with one line for a DATA_DIR that cannot be made, under /proc too', {
    skip: !fs.existsSync('/proc/self')
  }, async () => {
    const result = await run(MAIN, [], { PORT: '0', DATA_DIR: '/proc/so-config-test/data' })
    assert.equal(result.code, 1)
    assert.equal(result.stdout, '')
    assert.equal(result.stderr, "service-ordering: could not start: ENOENT: no such file or directory, mkdir '/proc/so-config-test'\n")
  })

  it('should name the settings in the one line when the SQLite file cannot be opened or the address not listened on (D-01)', async () => {
    const file = await run(MAIN, [], { PORT: '0', DATABASE_URL: 'sqlite:/proc/so-config-test.db' })
    assert.equal(file.code, 1)
    assert.equal(
      file.stderr,
      'service-ordering: could not start: the SQLite database /proc/so-config-test.db (DATABASE_URL, or DATA_DIR) cannot be opened: unable to open database file\n'
    )
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'so-config-host-'))
    try {
      // 192.0.2.1 (TEST-NET-1) is never an address of this machine.
      const host = await run(MAIN, [], { PORT: '0', HOST: '192.0.2.1', DATA_DIR: dataDir })
      assert.equal(host.code, 1)
      assert.match(
        host.stderr,
        /^service-ordering: could not start: cannot listen on HOST 192\.0\.2\.1 and PORT 0: listen EADDRNOTAVAIL[^\n]*\n$/
      )
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it('should exit 1 with the same line from the CLI', async () => {
    const result = await run(CLI, ['migrate'], { PORT: '99999', DATA_DIR: '/nonexistent/so-config-test' })
    assert.equal(result.code, 1)
    assert.equal(result.stdout, '')
    assert.equal(result.stderr, 'service-ordering: invalid configuration: PORT must be a whole number from 0 to 65535 (got "99999")\n')
  })
})
