import path from 'node:path'
import { connectionsPerAddress, parseHost, parseTrustProxy } from './config.network.js'
import { ConfigError, type Env, fail, httpUrl, integer, mailbox, onOff, text } from './config.values.js'

export { ConfigError, withoutPassword } from './config.values.js'

/** Which storage engine a DATABASE_URL selects. */
export type DatabaseConfig =
  | { readonly kind: 'sqlite'; readonly file: string } // file ':memory:' for an in-memory database
  | { readonly kind: 'postgres'; readonly url: string }

/** Everything the process may be configured with (D-02); built once, frozen, read nowhere else. */
export interface Config {
  readonly port: number
  readonly host: string
  readonly database: DatabaseConfig
  readonly dataDir: string
  readonly timeZone: string
  readonly publicUrl: string
  readonly smtpUrl: string | null
  /**
   * MAIL_FROM [service-ordering@localhost]: the From of every e-mail the dispatcher sends (D-60, D-36),
   * an address or `Display Name <address>`.
   */
  readonly mailFrom: string
  /** SHOP_NAME [Our shop]: the shop's name, 1 to 100 characters, as messages and the console name it (D-63). */
  readonly shopName: string
  readonly smsWebhookUrl: string | null
  readonly webhookUrl: string | null
  readonly webhookSecret: string | null
  readonly bootstrapApiKey: { readonly id: string; readonly secret: string } | null
  readonly cardEncryptionKey: Buffer | null
  readonly logLevel: LogLevel
  readonly trustProxy: boolean | number | string
  readonly dispatcher: boolean
  readonly production: boolean
  readonly sqliteSynchronous: 'FULL' | 'NORMAL'
  readonly databasePoolMax: number
  readonly statementTimeoutMs: number
  // Issue 8: slow and hostile clients (platform/http-limits.ts).
  /** HTTP_HEADERS_TIMEOUT_MS [10000]: the request line and headers must arrive within this (slowloris), else 408. */
  readonly httpHeadersTimeoutMs: number
  /** HTTP_REQUEST_TIMEOUT_MS [30000]: the whole request, body included, must arrive within this, else 408. */
  readonly httpRequestTimeoutMs: number
  /** HTTP_KEEP_ALIVE_TIMEOUT_MS [72000]: an idle kept-alive connection is closed after this. */
  readonly httpKeepAliveTimeoutMs: number
  /** HTTP_MAX_CONNECTIONS [1000]: connections open at once; past it the longest-idle one is closed to make room. */
  readonly httpMaxConnections: number
  /**
   * HTTP_MAX_CONNECTIONS_PER_ADDRESS [a quarter of HTTP_MAX_CONNECTIONS; all of them with TRUST_PROXY]:
   * connections one client address (IPv6 by /64) may hold at once (platform/connection-slots.ts).
   */
  readonly httpMaxConnectionsPerAddress: number
  /** HTTP_MAX_HEADER_SIZE [16384]: bytes of request line and headers; more is 431. */
  readonly httpMaxHeaderSize: number
  // Issue 10 (scale-out on PostgreSQL): pool limits, API processes, shared rate-limit counters.
  /** DATABASE_POOL_TIMEOUT_MS [3000]: longest wait for a pooled connection before 503 `unavailable`. */
  readonly databasePoolTimeoutMs: number
  /** DATABASE_POOL_QUEUE_MAX [1000]: requests waiting for a connection beyond this get 503 at once (0: none wait). */
  readonly databasePoolQueueMax: number
  /** WORKERS [1] (or `serve --workers N`): API processes forked by `serve` (node:cluster); above 1 needs PostgreSQL. */
  readonly workers: number
  /** REDIS_URL [unset: per process]: where rate-limit counters are shared between API processes (D-14). */
  readonly redisUrl: string | null
  /** RATE_LIMIT_MAX_KEYS [100000]: rate-limit counters kept in memory, per store (D-14, SECURITY.md "Rate limits"). */
  readonly rateLimitMaxKeys: number
  /** WORKER_METRICS_PORT [unset: none]: where `service-ordering worker` serves /healthz, /readyz and /metrics. */
  readonly workerMetricsPort: number | null
  /** BACKUP_DIR [unset: no scheduled backups]: where the API process puts its scheduled backups (D-92). */
  readonly backupDir: string | null
  /** BACKUP_INTERVAL_MINUTES [60]: time between scheduled backups (D-92). */
  readonly backupIntervalMinutes: number
  /** BACKUP_KEEP [48]: scheduled backups kept in BACKUP_DIR; older ones are deleted (D-92). */
  readonly backupKeep: number
}

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

function parseDatabase(env: Env, dataDir: string): DatabaseConfig {
  const raw = text(env, 'DATABASE_URL')
  if (raw === undefined) return { kind: 'sqlite', file: path.join(dataDir, 'service-ordering.db') }
  if (raw === 'sqlite::memory:') return { kind: 'sqlite', file: ':memory:' }
  if (raw.startsWith('sqlite:')) {
    const file = raw.slice('sqlite:'.length).replace(/^\/\//, '')
    if (file === '') fail('DATABASE_URL', 'sqlite:PATH, sqlite::memory: or a postgres:// URL', raw)
    return { kind: 'sqlite', file: path.resolve(file) }
  }
  if (/^postgres(ql)?:\/\//.test(raw)) {
    try {
      new URL(raw)
    } catch {
      fail('DATABASE_URL', 'sqlite:PATH, sqlite::memory: or a valid postgres:// URL', raw)
    }
    return { kind: 'postgres', url: raw }
  }
  return fail('DATABASE_URL', 'sqlite:PATH, sqlite::memory: or a postgres:// URL', raw)
}

function parseTimeZone(env: Env): string {
  const raw = text(env, 'TIME_ZONE') ?? 'UTC'
  try {
    // Throws RangeError for a zone the runtime's IANA database does not know.
    return new Intl.DateTimeFormat('en-US', { timeZone: raw }).resolvedOptions().timeZone
  } catch {
    return fail('TIME_ZONE', 'an IANA time zone such as UTC or America/New_York', raw)
  }
}

function parseShopName(env: Env): string {
  const raw = text(env, 'SHOP_NAME') ?? 'Our shop'
  // D-63: it stands in e-mail subjects and headers, so it is one line.
  if ([...raw].length > 100 || /[\u0000-\u001f\u007f-\u009f]/.test(raw)) fail('SHOP_NAME', '1 to 100 characters on one line', raw)
  return raw
}

function parseBootstrapKey(env: Env): Config['bootstrapApiKey'] {
  const raw = text(env, 'BOOTSTRAP_API_KEY')
  if (raw === undefined) return null
  const match = /^([A-Za-z0-9_-]{3,64}):([A-Za-z0-9._~+/=-]{32,256})$/.exec(raw)
  if (!match) {
    // Never echo the value: it holds a secret.
    throw new ConfigError(
      'BOOTSTRAP_API_KEY must be KEY_ID:SECRET, the id 3-64 characters of A-Z a-z 0-9 _ -, the secret at least 32 characters'
    )
  }
  return { id: match[1]!, secret: match[2]! }
}

function parseCardKey(env: Env): Buffer | null {
  const raw = text(env, 'CARD_ENCRYPTION_KEY')
  if (raw === undefined) return null
  const key = Buffer.from(raw, 'base64')
  if (key.length !== 32 || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(raw)) {
    throw new ConfigError('CARD_ENCRYPTION_KEY must be 32 bytes written in base64 (44 characters)')
  }
  return key
}

/** Reads and validates the environment (D-01, D-02); throws ConfigError naming the first bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 3000, 0, 65535)
  const dataDir = path.resolve(text(env, 'DATA_DIR') ?? 'data')
  const logLevelRaw = (text(env, 'LOG_LEVEL') ?? 'info').toLowerCase()
  if (!LOG_LEVELS.includes(logLevelRaw as LogLevel)) fail('LOG_LEVEL', LOG_LEVELS.join(', '), logLevelRaw)
  const synchronous = (text(env, 'SQLITE_SYNCHRONOUS') ?? 'FULL').toUpperCase()
  if (synchronous !== 'FULL' && synchronous !== 'NORMAL') fail('SQLITE_SYNCHRONOUS', 'FULL or NORMAL', synchronous)
  const nodeEnv = text(env, 'NODE_ENV')
  const webhookUrl = httpUrl(env, 'WEBHOOK_URL', ['http:', 'https:'])
  const webhookSecret = text(env, 'WEBHOOK_SECRET') ?? null
  if (webhookUrl !== null && webhookSecret === null) {
    throw new ConfigError('WEBHOOK_SECRET must be set when WEBHOOK_URL is set (a whsec_… secret of at least 24 bytes)')
  }
  if (webhookSecret !== null && !/^(whsec_)?[A-Za-z0-9+/]{32,}={0,2}$/.test(webhookSecret)) {
    throw new ConfigError('WEBHOOK_SECRET must be a base64 secret of at least 24 bytes, optionally prefixed whsec_')
  }
  const trustProxy = parseTrustProxy(env)
  const maxConnections = integer(env, 'HTTP_MAX_CONNECTIONS', 1000, 1, 1_000_000)
  const backupDir = text(env, 'BACKUP_DIR')

  const config: Config = {
    port,
    host: parseHost(env),
    database: parseDatabase(env, dataDir),
    dataDir,
    timeZone: parseTimeZone(env),
    publicUrl: (httpUrl(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    smtpUrl: httpUrl(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: mailbox(env, 'MAIL_FROM', 'service-ordering@localhost'),
    shopName: parseShopName(env),
    smsWebhookUrl: httpUrl(env, 'SMS_WEBHOOK_URL', ['http:', 'https:']),
    webhookUrl,
    webhookSecret,
    bootstrapApiKey: parseBootstrapKey(env),
    cardEncryptionKey: parseCardKey(env),
    logLevel: logLevelRaw as LogLevel,
    trustProxy,
    dispatcher: onOff(env, 'DISPATCHER', true),
    production: nodeEnv === 'production',
    sqliteSynchronous: synchronous,
    databasePoolMax: integer(env, 'DATABASE_POOL_MAX', 10, 1, 1000),
    statementTimeoutMs: integer(env, 'STATEMENT_TIMEOUT_MS', 10_000, 0, 3_600_000),
    httpHeadersTimeoutMs: integer(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
    httpRequestTimeoutMs: integer(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
    httpKeepAliveTimeoutMs: integer(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 72_000, 100, 3_600_000),
    httpMaxConnections: maxConnections,
    httpMaxConnectionsPerAddress: connectionsPerAddress(env, maxConnections, trustProxy),
    httpMaxHeaderSize: integer(env, 'HTTP_MAX_HEADER_SIZE', 16_384, 1024, 1_048_576),
    databasePoolTimeoutMs: integer(env, 'DATABASE_POOL_TIMEOUT_MS', 3000, 1, 600_000),
    databasePoolQueueMax: integer(env, 'DATABASE_POOL_QUEUE_MAX', 1000, 0, 100_000),
    workers: integer(env, 'WORKERS', 1, 1, 64, 'WORKERS (or serve --workers)'),
    redisUrl: httpUrl(env, 'REDIS_URL', ['redis:', 'rediss:']),
    rateLimitMaxKeys: integer(env, 'RATE_LIMIT_MAX_KEYS', 100_000, 10, 10_000_000),
    workerMetricsPort: text(env, 'WORKER_METRICS_PORT') === undefined ? null : integer(env, 'WORKER_METRICS_PORT', 0, 0, 65535),
    backupDir: backupDir === undefined ? null : path.resolve(backupDir),
    backupIntervalMinutes: integer(env, 'BACKUP_INTERVAL_MINUTES', 60, 1, 10_080),
    backupKeep: integer(env, 'BACKUP_KEEP', 48, 1, 100_000)
  }
  // Several API processes on one SQLite file would queue for its single writer with the event loop
  // blocked (busy_timeout); on `:memory:` each would even have its own database. Scale-out is PostgreSQL's.
  if (config.workers > 1 && config.database.kind === 'sqlite') {
    throw new ConfigError(
      `WORKERS (or serve --workers) must be 1 with SQLite (got ${config.workers}); several API processes need a postgres:// DATABASE_URL`
    )
  }
  if (config.httpHeadersTimeoutMs > config.httpRequestTimeoutMs) {
    throw new ConfigError(
      `HTTP_HEADERS_TIMEOUT_MS must not be more than HTTP_REQUEST_TIMEOUT_MS (got ${config.httpHeadersTimeoutMs} and ${config.httpRequestTimeoutMs})`
    )
  }
  if (config.production && config.cardEncryptionKey === null) {
    throw new ConfigError('CARD_ENCRYPTION_KEY must be set when NODE_ENV=production (32 bytes written in base64)')
  }
  return Object.freeze(config)
}
