import { parseArgs } from 'node:util'
import { systemClock } from '../../common/clock.js'
import type { Config } from '../../config.js'
import { openDatabase } from '../../db/database.js'
import { migrateToLatest } from '../../db/migrator.js'
import { createLogger } from '../../platform/logger.js'
import { checkDataKey, loadCardKey } from '../payments/index.js'
import { createDispatcher } from './create-dispatcher.js'
import type { OwnerFragments } from './notifications.repository.js'
import { type OutboxListRow, outboxOperations } from './outbox.operations.js'
import type { OutboxStatus } from './outbox.table.js'
import { startWorkerHttp, type WorkerHttp, workerMetrics } from './worker-http.js'

/** Usage lines of the commands below, for cli.ts's help text. */
export const NOTIFICATIONS_USAGE = `  worker                                      run the event dispatcher alone, until SIGTERM or SIGINT
  outbox list [--status pending|delivered|skipped|dead] [--limit N]
                                              the newest outbox rows (never their payloads)
  outbox retry ID|EVENT_ID                    send a dead or failed outbox row again now
`

/** Makes the CLI's usage error (printed with the usage, exit status 2). */
export type UsageErrorFactory = (message: string) => Error

/** `service-ordering worker` (D-61): the dispatcher without the API, stopped by SIGTERM or SIGINT; `fragments` as for `createDispatcher`. */
export async function runWorker(config: Config, fragments: OwnerFragments): Promise<void> {
  const logger = createLogger(config.logLevel)
  const database = openDatabase(config)
  let http: WorkerHttp | undefined
  try {
    await migrateToLatest(database.db, database.dialect)
    const { metrics, counters } = workerMetrics(database)
    const dataKey = loadCardKey(config)
    await checkDataKey(database.db, dataKey)
    const dispatcher = createDispatcher({ settings: config, database, fragments, dataKey, logger, counters })
    if (config.workerMetricsPort !== null) http = await startWorkerHttp(config, config.workerMetricsPort, database, metrics, logger)
    dispatcher.start()
    const stopSignal = new Promise<NodeJS.Signals>((resolve) => {
      process.once('SIGTERM', () => resolve('SIGTERM'))
      process.once('SIGINT', () => resolve('SIGINT'))
    })
    // Said once the handlers are in place: a signal sent on seeing this line stops it gracefully.
    logger.info({ dispatcher: dispatcher.id, database: config.database.kind, metrics: http?.url ?? null }, 'outbox dispatcher is running')
    const signal = await stopSignal
    logger.info({ signal }, 'stopping: finishing the deliveries in flight')
    await dispatcher.stop({ drainMs: 20_000 })
    logger.info('stopped')
  } finally {
    await http?.close()
    await database.close()
  }
}

const STATUSES: readonly OutboxStatus[] = ['pending', 'delivered', 'skipped', 'dead']

function time(ms: number | null): string {
  return ms === null ? '-' : new Date(ms).toISOString()
}

function listLine(row: OutboxListRow, now: number): string {
  const next =
    row.status !== 'pending' ? '-' : row.claimed_until !== null && row.claimed_until > now ? 'in flight' : time(row.next_attempt_at)
  return [
    String(row.id).padEnd(8),
    row.event_id.padEnd(28),
    row.channel.padEnd(7),
    row.template.padEnd(14),
    row.status.padEnd(9),
    String(row.attempts).padEnd(8),
    next.padEnd(24),
    (row.last_error ?? '-').replace(/\s+/g, ' ')
  ].join(' ')
}

/** `service-ordering outbox list|retry` (D-90): what the dispatcher has to do, and a second chance. */
export async function outboxCommand(config: Config, args: string[], usageError: UsageErrorFactory): Promise<void> {
  const [action, ...rest] = args
  const { values, positionals } = parseArgs({
    args: rest,
    options: { status: { type: 'string' }, limit: { type: 'string' } },
    allowPositionals: true,
    strict: true
  })
  if (action !== 'list' && action !== 'retry') throw usageError('outbox needs list or retry')
  const words = action === 'retry' ? 1 : 0
  if (positionals.length > words) throw usageError(`unexpected argument ${positionals[words]}`)
  const status = values.status as OutboxStatus | undefined
  if (status !== undefined && !STATUSES.includes(status)) throw usageError(`--status must be one of ${STATUSES.join(', ')}`)
  // Digits only: Number() would also read 1e2 and 0x3.
  const limit = values.limit === undefined ? 50 : /^\d{1,4}$/.test(values.limit) ? Number(values.limit) : Number.NaN
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw usageError('--limit must be a whole number from 1 to 1000')
  const ref = positionals[0]
  if (action === 'retry' && ref === undefined) throw usageError('outbox retry needs the ID or EVENT_ID of a row')

  const database = openDatabase(config)
  try {
    await migrateToLatest(database.db, database.dialect)
    const operations = outboxOperations(database, systemClock)
    if (action === 'list') {
      const now = systemClock.now()
      const rows = await operations.list(status === undefined ? { limit } : { status, limit })
      process.stdout.write(
        'ID       EVENT_ID                     CHANNEL TEMPLATE       STATUS    FAILURES NEXT_ATTEMPT             LAST_ERROR\n'
      )
      for (const row of rows) process.stdout.write(`${listLine(row, now)}\n`)
      return
    }
    const outcome = await operations.retry(ref!)
    if (!outcome.done) {
      process.stderr.write(`service-ordering: ${outcome.reason}\n`)
      process.exitCode = 1
      return
    }
    process.stdout.write(`outbox row ${outcome.row.id} (${outcome.row.event_id}) will be sent again now\n`)
  } finally {
    await database.close()
  }
}
