import type { Logger } from 'pino'
import { Gauge } from 'prom-client'
import { messageOf } from '../../common/async.js'
import type { Clock } from '../../common/clock.js'
import type { Config } from '../../config.js'
import type { Metrics } from '../../platform/metrics.js'
import { pruneBackups, takeBackup } from './backup.js'

/** What /metrics shows of scheduled backups (D-92). */
export interface BackupMetrics {
  succeeded(atMs: number): void
  failed(): void
}

/** Registers `backup_last_success_timestamp_seconds` and `backup_failures_total` on the app's metrics (D-92). */
export function registerBackupMetrics(metrics: Metrics): BackupMetrics {
  const lastSuccess = new Gauge({
    name: 'backup_last_success_timestamp_seconds',
    help: 'When the last scheduled backup succeeded, in seconds since the Unix epoch (0: none yet).',
    registers: [metrics.registry]
  })
  const failures = metrics.counter('backup_failures_total', 'Scheduled backups that failed.', [])
  lastSuccess.set(0)
  return {
    succeeded: (atMs) => lastSuccess.set(atMs / 1000),
    failed: () => failures.inc()
  }
}

/** The timers the schedule runs on; tests hand in their own so nothing waits for real. */
export interface BackupTimers {
  setTimeout(fn: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

const realTimers: BackupTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout)
}

export interface BackupScheduleDeps {
  settings: Pick<Config, 'database' | 'backupDir' | 'backupIntervalMinutes' | 'backupKeep'>
  metrics: BackupMetrics
  clock: Clock
  logger: Pick<Logger, 'info' | 'warn'>
  timers?: BackupTimers
}

export interface BackupSchedule {
  /** Waits for a backup in progress, then stops. */
  stop(): Promise<void>
}

/**
 * D-92: a backup every BACKUP_INTERVAL_MINUTES into BACKUP_DIR, the newest BACKUP_KEEP kept. A
 * failure is a warning and a counter, tried again at the next interval; no request or /readyz
 * depends on it. The next one is timed from the end of the last, so two never overlap.
 */
export function startBackupSchedule(deps: BackupScheduleDeps): BackupSchedule | null {
  const { settings, metrics, clock, logger } = deps
  const dir = settings.backupDir
  if (dir === null) return null
  const timers = deps.timers ?? realTimers
  const intervalMs = settings.backupIntervalMinutes * 60_000
  let stopped = false
  let handle: unknown = null
  let running: Promise<void> = Promise.resolve()

  const once = async () => {
    try {
      const result = await takeBackup(settings, dir, clock)
      const removed = pruneBackups(dir, settings.backupKeep)
      metrics.succeeded(clock.now())
      logger.info({ backup: result, removed }, 'took a scheduled backup')
    } catch (error) {
      metrics.failed()
      logger.warn({ dir, err: messageOf(error) }, 'a scheduled backup failed; trying again at the next interval')
    }
  }
  const schedule = () => {
    handle = timers.setTimeout(() => {
      handle = null
      running = once().finally(() => {
        if (!stopped) schedule()
      })
    }, intervalMs)
  }
  schedule()
  return {
    stop: async () => {
      stopped = true
      if (handle !== null) timers.clearTimeout(handle)
      await running
    }
  }
}
