import type { Logger } from 'pino'
import { buildApp } from './app.js'
import { messageOf, settlesWithin } from './common/async.js'
import { type Clock, systemClock } from './common/clock.js'
import { type Config, withoutPassword } from './config.js'
import { type Database, openDatabase } from './db/database.js'
import { isDatabaseFailure } from './db/errors.js'
import { migrateToLatest } from './db/migrator.js'
import { ApiKeysService } from './modules/api-keys/index.js'
import { startBackupSchedule } from './modules/backups/index.js'
import { contactSelect } from './modules/customers/index.js'
import { createDispatcher } from './modules/notifications/index.js'
import { trackedHistoryInsert } from './modules/orders/index.js'
import { checkDataKey, loadCardKey } from './modules/payments/index.js'
import type { App } from './platform/app-types.js'
import { createLogger } from './platform/logger.js'

/**
 * How long closing the database may take once requests are done or cut. A statement that never
 * ends (STATEMENT_TIMEOUT_MS=0, and a database that stopped answering or a lock never released)
 * keeps its connection, and closing the pool waits for it: without a bound the process never exited.
 */
const DATABASE_CLOSE_MS = 2000

/** The database; a SQLite file that cannot be opened is named with its settings (D-01), not only "unable to open database file". */
function openNamingTheSetting(config: Config): Database {
  try {
    return openDatabase(config)
  } catch (error) {
    if (config.database.kind !== 'sqlite' || (error as { code?: string }).code !== 'SQLITE_CANTOPEN') throw error
    throw new Error(`the SQLite database ${config.database.file} (DATABASE_URL, or DATA_DIR) cannot be opened: ${messageOf(error)}`)
  }
}

// SQLSTATE classes of reaching or signing in to PostgreSQL: 08 (connection), 28 (authorization),
// 3D000 (no such database), 53300 (too many connections) and 57P03 (starting up).
const UNREACHABLE = /^(08...|28...|3D000|53300|57P03)$/

/**
 * D-01: a PostgreSQL that cannot be reached or signed in to is named with its setting, as a SQLite
 * file is: "connect ECONNREFUSED 127.0.0.1:5999" alone does not say which setting to fix. The URL is
 * shown without its password. A failed connect arrives as our own DatabaseUnavailableError.
 */
function namingTheDatabase(config: Config, error: unknown): unknown {
  if (config.database.kind !== 'postgres') return error
  const code = (error as { code?: unknown } | null)?.code
  if (!isDatabaseFailure(error) && !(typeof code === 'string' && UNREACHABLE.test(code))) return error
  const cause = error instanceof Error && error.cause !== undefined ? error.cause : error
  return new Error(`the PostgreSQL database of DATABASE_URL (${withoutPassword(config.database.url)}) cannot be used: ${messageOf(cause)}`)
}

/** A listening server and what it holds open. */
export interface RunningServer {
  readonly app: App
  readonly database: Database
  /** The address it listens on, e.g. `http://127.0.0.1:3000`. */
  readonly url: string
  /** Stops accepting, finishes requests in flight (at most `drainMs`), closes the database. */
  close(drainMs?: number): Promise<void>
}

/** Makes sure someone can call the API: BOOTSTRAP_API_KEY (D-02), or the first-start key file (D-03). */
async function ensureAdminKey(config: Config, database: Database, clock: Clock, logger: Logger): Promise<void> {
  const keys = new ApiKeysService(database, clock)
  if (config.bootstrapApiKey !== null) {
    await keys.ensureBootstrapKey(config.bootstrapApiKey.id, config.bootstrapApiKey.secret)
    return
  }
  const file = await keys.ensureInitialKey(config.dataDir)
  // The path only: the secret itself never reaches a log line.
  if (file !== null) logger.warn({ file }, 'created the first admin API key; its KEY_ID:SECRET is in this file')
}

/**
 * The database made ready for the API: migrations (D-04; those applied are logged, so an upgrade
 * shows), the start-up keys (D-02, D-03) and the data key's check.
 */
async function prepareDatabase(config: Config, database: Database, dataKey: Buffer, clock: Clock, logger: Logger): Promise<void> {
  const applied = await migrateToLatest(database.db, database.dialect)
  if (applied.length > 0) logger.info({ migrations: applied }, 'applied database migrations')
  await ensureAdminKey(config, database, clock, logger)
  await checkDataKey(database.db, dataKey)
}

/**
 * Issue 10: what `serve --workers N` does once, in the primary, before forking: migrations (D-04),
 * the start-up keys (D-02, D-03) and, outside production, the generated card key file, so N workers
 * starting at once neither repeat the work nor read a key file another is still writing.
 */
export async function prepareStart(config: Config, options: { logger?: Logger; clock?: Clock } = {}): Promise<void> {
  const database = openNamingTheSetting(config)
  try {
    await prepareDatabase(
      config,
      database,
      loadCardKey(config),
      options.clock ?? systemClock,
      options.logger ?? createLogger(config.logLevel)
    )
  } catch (error) {
    throw namingTheDatabase(config, error)
  } finally {
    await database.close()
  }
}

/**
 * Config → database → migrations → keys → app → listen (ARCHITECTURE 1). `prepared`: the cluster
 * primary already ran `prepareStart`, so this process only checks nothing and listens.
 */
export async function startServer(
  config: Config,
  options: { logger?: Logger; clock?: Clock; prepared?: boolean } = {}
): Promise<RunningServer> {
  const clock = options.clock ?? systemClock
  const logger = options.logger ?? createLogger(config.logLevel)
  const database = openNamingTheSetting(config)
  let app: App | undefined
  try {
    const dataKey = loadCardKey(config)
    if (options.prepared !== true) await prepareDatabase(config, database, dataKey, clock, logger)
    app = await buildApp({ config, database, dataKey, clock, logger })
    const url = await app.listen({ port: config.port, host: config.host }).catch((error: unknown) => {
      // D-01: the one line names the settings; Node's own says only "listen EADDRNOTAVAIL …".
      throw new Error(`cannot listen on HOST ${config.host} and PORT ${config.port}: ${messageOf(error)}`)
    })
    const running = app
    // A failed accept (out of file descriptors) is emitted on the server; unheard, it ended the process.
    running.server.on('error', (error) => logger.warn({ err: error }, 'could not accept a connection'))
    // D-61: the event dispatcher runs in the API process unless DISPATCHER=off (`service-ordering worker`).
    const dispatcher = config.dispatcher
      ? createDispatcher({
          settings: config,
          database,
          fragments: { contact: contactSelect, trackedEntry: trackedHistoryInsert },
          dataKey,
          clock,
          logger,
          counters: running.outboxCounters
        })
      : null
    dispatcher?.start()
    // D-92: with BACKUP_DIR set; cluster.ts leaves it unset in all workers but the first.
    const backups =
      running.backupMetrics === null ? null : startBackupSchedule({ settings: config, metrics: running.backupMetrics, clock, logger })
    return {
      app: running,
      database,
      url,
      close: async (drainMs = 10_000) => {
        // D-72: stop accepting, let requests in flight finish, then cut whatever is left.
        const timer = setTimeout(() => running.server.closeAllConnections(), drainMs)
        try {
          // The dispatcher finishes its deliveries in flight beside the requests, before the database closes.
          await Promise.all([dispatcher?.stop({ drainMs }), backups?.stop(), running.close()])
        } finally {
          clearTimeout(timer)
          if (!(await settlesWithin(database.close(), DATABASE_CLOSE_MS))) {
            logger.warn('stopped before the database connections closed: a statement was still waiting for the database')
          }
        }
      }
    }
  } catch (error) {
    await app?.close().catch(() => {})
    await database.close().catch(() => {})
    throw namingTheDatabase(config, error)
  }
}
