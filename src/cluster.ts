import cluster, { type Worker } from 'node:cluster'
import type { Logger } from 'pino'
import type { Config } from './config.js'
import { prepareStart } from './http-server.js'
import { createLogger } from './platform/logger.js'

/**
 * Issue 10: `service-ordering serve --workers N` (or WORKERS=N). This process becomes the primary
 * of a node:cluster: it runs the start-up work once (migrations, start-up keys, card key file), then
 * forks N API workers that share its port (the primary accepts connections and hands them round
 * robin to the workers). It serves no request and holds no database connection itself.
 *
 * - Nothing a request needs lives in one worker's memory: idempotency keys and the outbox are in the
 *   database, rate-limit counters in Redis when REDIS_URL is set (else per worker, documented).
 * - The in-process dispatcher (DISPATCHER=on, D-61) runs in worker slot 0 only, not N times; the
 *   slot keeps it across restarts. `service-ordering worker` processes add more dispatchers.
 * - A worker that dies is replaced after a backoff (0.5 s, doubling per quick death, at most 30 s).
 *   A worker that dies before any worker of the first generation has listened stops the start with
 *   exit status 1, as one process would (a busy port, a bad database).
 * - SIGTERM or SIGINT: every worker drains as one process does (D-72: stops accepting, finishes its
 *   requests in flight for up to 10 s, closes the database); then the primary exits 0.
 */

/** The message a worker sends the primary once it listens. */
interface ListeningMessage {
  type: 'service-ordering:listening'
  url: string
}

/** The environment variable naming a worker's slot (0 … N-1). */
const WORKER_SLOT_ENV = 'SERVICE_ORDERING_WORKER_SLOT'

const FIRST_BACKOFF_MS = 500
const MAX_BACKOFF_MS = 30_000
// A worker that lived this long was healthy: the next death starts the backoff again.
const HEALTHY_AFTER_MS = 30_000

interface Slot {
  readonly index: number
  worker: Worker | null
  startedAt: number
  /** Deaths in a row, each sooner than HEALTHY_AFTER_MS after its start. */
  quickDeaths: number
  restart: NodeJS.Timeout | null
}

function isListeningMessage(message: unknown): message is ListeningMessage {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'service-ordering:listening'
}

/** In a cluster worker: this worker's slot, for its log lines. */
export function workerSlot(): number | null {
  if (!cluster.isWorker) return null
  const slot = Number(process.env[WORKER_SLOT_ENV])
  return Number.isInteger(slot) ? slot : null
}

/** In a cluster worker: tells the primary this worker listens (the primary logs once for all). */
export function reportListening(url: string): void {
  const message: ListeningMessage = { type: 'service-ordering:listening', url }
  process.send?.(message)
}

/** The primary of `serve --workers N`; resolves once the workers are forked, exits the process on shutdown. */
export async function runPrimary(config: Config, options: { drainMs?: number } = {}): Promise<void> {
  const logger: Logger = createLogger(config.logLevel).child({ role: 'primary' })
  const drainMs = options.drainMs ?? 10_000
  // Once, before any worker: workers start with `prepared` and skip it.
  await prepareStart(config, { logger })

  const slots: Slot[] = Array.from({ length: config.workers }, (_unused, index) => ({
    index,
    worker: null,
    startedAt: 0,
    quickDeaths: 0,
    restart: null
  }))
  const listening = new Set<number>()
  let announced = false
  let stopping = false

  const fork = (slot: Slot) => {
    slot.restart = null
    const env: Record<string, string> = { [WORKER_SLOT_ENV]: String(slot.index) }
    // D-61: one in-process dispatcher per cluster, in slot 0, whatever N is.
    if (slot.index > 0) env.DISPATCHER = 'off'
    // D-92: scheduled backups likewise in slot 0 only (an empty BACKUP_DIR is unset).
    if (slot.index > 0) env.BACKUP_DIR = ''
    const worker = cluster.fork(env)
    slot.worker = worker
    slot.startedAt = Date.now()
    // Issue 25: a failed send or kill on the worker's channel (one that has just died) is an 'error'
    // event on it; unheard, it would end the primary and every worker. Its exit is handled below.
    worker.on('error', (error: Error) =>
      logger.warn({ slot: slot.index, pid: worker.process.pid, err: error }, 'an API worker channel failed')
    )
    worker.on('message', (message: unknown) => {
      if (!isListeningMessage(message) || announced) return
      listening.add(slot.index)
      if (listening.size === slots.length) {
        announced = true
        logger.info({ url: message.url, workers: slots.length, database: config.database.kind }, 'service-ordering is listening')
      }
    })
    worker.once('exit', (code, signal) => {
      if (slot.worker === worker) slot.worker = null
      if (stopping) return
      if (!announced) {
        // The first generation never came up: fail like a single process would, not loop for ever.
        logger.fatal({ slot: slot.index, pid: worker.process.pid, code, signal }, 'an API worker failed to start; stopping')
        void shutdown('start failed', 1)
        return
      }
      slot.quickDeaths = Date.now() - slot.startedAt < HEALTHY_AFTER_MS ? slot.quickDeaths + 1 : 1
      const delay = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (slot.quickDeaths - 1))
      logger.error(
        { slot: slot.index, pid: worker.process.pid, code, signal, restartInMs: delay },
        'an API worker exited; starting another'
      )
      slot.restart = setTimeout(() => fork(slot), delay)
    })
  }

  const shutdown = async (reason: string, exitCode: number) => {
    if (stopping) return
    stopping = true
    logger.info(
      { signal: reason, workers: slots.filter((s) => s.worker !== null).length },
      'shutting down: every API worker finishes its requests in flight'
    )
    const exits: Promise<unknown>[] = []
    for (const slot of slots) {
      if (slot.restart !== null) clearTimeout(slot.restart)
      const worker = slot.worker
      if (worker === null || worker.isDead()) continue
      exits.push(new Promise((resolve) => worker.once('exit', resolve)))
      // Each worker drains as one process does (serve-command.ts, D-72).
      worker.process.kill('SIGTERM')
    }
    // A worker that has not drained well after its own 10 s window is stuck: cut it.
    const deadline = setTimeout(() => {
      for (const slot of slots) {
        if (slot.worker !== null && !slot.worker.isDead()) {
          logger.warn({ slot: slot.index, pid: slot.worker.process.pid }, 'an API worker did not stop in time; killing it')
          slot.worker.process.kill('SIGKILL')
        }
      }
    }, drainMs + 5000)
    await Promise.all(exits)
    clearTimeout(deadline)
    logger.info('stopped')
    process.exit(exitCode)
  }

  // `on`, not `once`: repeated signals while draining are ignored (`stopping`), as in serve-command.ts.
  process.on('SIGTERM', () => void shutdown('SIGTERM', 0))
  process.on('SIGINT', () => void shutdown('SIGINT', 0))

  logger.info({ workers: slots.length, dispatcher: config.dispatcher ? 'worker slot 0' : 'off' }, 'starting API workers')
  for (const slot of slots) fork(slot)
}
