import { randomBytes } from 'node:crypto'
import os from 'node:os'
import type { Logger } from 'pino'
import { settlesWithin } from '../../common/async.js'
import type { Clock } from '../../common/clock.js'
import type { Database } from '../../db/database.js'
import { type ChannelSet, type DeliveryResult, failed } from './channels/channel.js'
import { describeError } from './channels/errors.js'
import { retryAfter } from './channels/http.js'
import type { OutboxCounters } from './notifications.metrics.js'
import { DEFAULT_RETRY_POLICY, type RetryPolicy, retryDelay } from './outbox.backoff.js'
import { deliverRow } from './outbox.delivery.js'
import { OUTBOX_CHANNELS as CHANNELS, type OutboxChannel } from './outbox.table.js'
import { type ClaimedRow, type OutboxClaims, outboxClaims, type SkippedChannels } from './outbox-claims.repository.js'

/** How a dispatcher paces itself; every value can be made small for tests. */
export interface DispatcherOptions {
  /** Names this dispatcher in `claimed_by`; unique per process and start. */
  readonly id: string
  /** Sleep between polls when there was nothing to do. */
  readonly pollIntervalMs: number
  /** Rows claimed at once, and deliveries in flight per channel at most (each of another order, D-60). */
  readonly batchSize: number
  /** How long a claim holds; a dispatcher killed mid-delivery frees its rows when it runs out. */
  readonly leaseMs: number
  /** A delivery taking longer fails; well below the lease, so a row is never delivered twice at once. */
  readonly deliveryTimeoutMs: number
  readonly retry: RetryPolicy
  /** Source of the backoff jitter. */
  readonly random: () => number
}

/** A dispatcher id: host, process and a random part, so restarts and neighbours never share one. */
function newDispatcherId(): string {
  return `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`
}

/** Defaults (D-60, D-61): poll every 500 ms, 20 rows a batch, 60 s leases, 15 s per delivery. */
export function dispatcherOptions(overrides: Partial<DispatcherOptions> = {}): DispatcherOptions {
  const options: DispatcherOptions = {
    id: newDispatcherId(),
    pollIntervalMs: 500,
    batchSize: 20,
    leaseMs: 60_000,
    deliveryTimeoutMs: 15_000,
    retry: DEFAULT_RETRY_POLICY,
    random: Math.random,
    ...overrides
  }
  if (options.deliveryTimeoutMs >= options.leaseMs) throw new Error('the delivery time-out must be shorter than the lease')
  return options
}

/** What a dispatcher is built from; tests pass their own channels, clock and options. */
export interface DispatcherDeps {
  database: Database
  channels: ChannelSet
  clock: Clock
  logger: Logger
  counters: OutboxCounters
  options: DispatcherOptions
}

// After a database error the loop waits longer each time, up to this, instead of logging every poll.
const MAX_ERROR_PAUSE_MS = 30_000

/**
 * Delivers outbox rows at least once (D-60, D-61): claim rows in a short transaction, deliver
 * outside any transaction, record each outcome in another short transaction that applies only while
 * the claim still holds. Polling alone is enough for correctness; `nudge()` only cuts latency.
 *
 * Deliveries run side by side, and each frees its place as soon as it settles: one that hangs (an
 * SMTP server that never answers) holds back only its own order, whose later rows wait for it anyway
 * (D-60), and never the deliveries of other orders or other channels. A channel with `batchSize` in
 * flight is passed over by claims until some settle (one claim may take it past that, to less than
 * twice as many).
 */
export class Dispatcher {
  readonly id: string
  private readonly claims: OutboxClaims
  private readonly log: Logger
  private loop: Promise<void> | null = null
  private stopping = false
  private wake: (() => void) | null = null
  private nudged = false
  // Deliveries under way, and how many of them each channel has.
  private readonly running = new Set<Promise<void>>()
  private readonly busy = new Map<OutboxChannel, number>()
  private settledSinceClaim = 0

  constructor(private readonly deps: DispatcherDeps) {
    this.id = deps.options.id
    this.claims = outboxClaims(deps.database)
    this.log = deps.logger.child({ component: 'outbox-dispatcher', dispatcher: this.id })
  }

  /** Starts polling in the background; a second call does nothing. */
  start(): void {
    if (this.loop !== null || this.stopping) return
    this.loop = this.run()
  }

  /**
   * Asks for a poll now. Nothing in the server calls it yet: a commit does not tell which of its
   * rows were outbox rows, and nudging after every write would cost PostgreSQL a claim statement
   * per write. So a message waits for the next poll (500 ms at most, D-61).
   */
  nudge(): void {
    if (this.wake !== null) this.wake()
    else this.nudged = true
  }

  /**
   * Stops polling and waits for the deliveries in flight to be delivered and recorded, at most
   * `drainMs`; a delivery left behind is not lost, its lease runs out and another dispatcher takes it over.
   */
  async stop(options: { drainMs?: number } = {}): Promise<void> {
    this.stopping = true
    this.wake?.()
    if (this.loop !== null) {
      const drained = await settlesWithin(
        this.loop.then(() => this.drained()),
        options.drainMs ?? 10_000
      )
      if (!drained) this.log.warn('stopped before the deliveries in flight finished; their leases will run out')
    }
    await Promise.all(Object.values(this.deps.channels).map((channel) => channel.close?.().catch(() => {})))
  }

  /** One poll: claims what is deliverable now, delivers it, records the outcomes; returns the rows handled. */
  async runOnce(): Promise<number> {
    const rows = await this.claimDue(this.deps.options.batchSize, [])
    await Promise.all(rows.map((row) => this.process(row)))
    return rows.length
  }

  // A read first, so an idle poll never takes SQLite's write lock or opens a PostgreSQL transaction.
  private async claimDue(limit: number, skipped: SkippedChannels): Promise<ClaimedRow[]> {
    const { database, clock, options } = this.deps
    const now = clock.now()
    if (!(await this.claims.hasDue(now, skipped))) return []
    return database.unitOfWork.run((tx) => this.claims.claim(tx, this.id, now, now + options.leaseMs, limit, skipped))
  }

  private async run(): Promise<void> {
    const { batchSize, pollIntervalMs } = this.deps.options
    let errors = 0
    while (!this.stopping) {
      const skipped = CHANNELS.filter((channel) => (this.busy.get(channel) ?? 0) >= batchSize)
      let claimed: ClaimedRow[] = []
      if (skipped.length < CHANNELS.length) {
        try {
          claimed = await this.claimDue(batchSize, skipped)
          this.settledSinceClaim = 0
          errors = 0
        } catch (error) {
          errors++
          // A database away (restart, failover) is an outage the operator sees in /readyz, not a bug.
          if (this.deps.database.dialect.isUnavailable(error)) this.log.warn({ err: error }, 'outbox poll failed: database unavailable')
          else this.log.error({ err: error }, 'outbox poll failed')
        }
      }
      for (const row of claimed) this.begin(row)
      if (this.stopping) break
      // A full claim leaves more due rows behind: claim again at once (while a channel has room).
      if (claimed.length === batchSize) continue
      // Otherwise wait for the poll interval, a nudge, or enough deliveries settling (see begin).
      const pause = errors === 0 ? pollIntervalMs : Math.min(MAX_ERROR_PAUSE_MS, pollIntervalMs * 2 ** errors)
      await this.sleep(pause)
    }
  }

  // Runs one delivery in the background; when it settles, its order's next row may be due, so the
  // loop is woken, but only once half a batch has settled (or nothing is left in flight): a claim
  // per settled delivery would double the dispatcher's transactions under load.
  private begin(row: ClaimedRow): void {
    this.busy.set(row.channel, (this.busy.get(row.channel) ?? 0) + 1)
    const delivery = this.process(row)
      // process records every outcome itself; this only keeps an unforeseen error from going unhandled.
      .catch((error: unknown) => this.log.error({ err: error, event_id: row.event_id }, 'outbox delivery failed unexpectedly'))
      .finally(() => {
        this.running.delete(delivery)
        this.busy.set(row.channel, this.busy.get(row.channel)! - 1)
        this.settledSinceClaim++
        if (this.running.size === 0 || this.settledSinceClaim >= Math.ceil(this.deps.options.batchSize / 2)) this.nudge()
      })
    this.running.add(delivery)
  }

  // Resolves once no delivery is in flight (they never reject, see begin).
  private async drained(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running])
  }

  // Waits `ms`, or less when nudged or stopped; a nudge that came during the last poll counts too.
  private sleep(ms: number): Promise<void> {
    if (this.nudged) {
      this.nudged = false
      return Promise.resolve()
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.wake = null
        resolve()
      }
      const timer = setTimeout(done, ms)
      this.wake = done
    })
  }

  private async process(row: ClaimedRow): Promise<void> {
    const result = await deliverRow(row, this.deps.channels, this.deps.options.deliveryTimeoutMs)
    try {
      await this.settle(row, result)
    } catch (error) {
      // E.g. the history entry of a trak event could not be written: the delivery counts as failed.
      this.log.error({ err: error, event_id: row.event_id, channel: row.channel }, 'could not record an outbox delivery')
      await this.settle(row, failed(`the delivery could not be recorded: ${describeError(error)}`)).catch((again: unknown) => {
        // The database is away: the lease runs out and the row is delivered again (at least once).
        this.log.error({ err: again, event_id: row.event_id }, 'could not record an outbox failure')
      })
    }
  }

  private async settle(row: ClaimedRow, result: DeliveryResult): Promise<void> {
    const { database, clock, counters, options } = this.deps
    const now = clock.now()
    const held = { id: row.id, me: this.id, now }
    const context = { event_id: row.event_id, channel: row.channel, template: row.template }
    let applied: boolean
    if (result.kind === 'delivered') {
      applied = await database.unitOfWork.run(async (tx) => {
        const marked = await this.claims.markDelivered(tx, held)
        if (marked && result.onDelivered !== undefined) await result.onDelivered(tx, now)
        return marked
      })
      if (applied) {
        counters.delivered(row.channel)
        this.log.debug({ ...context, attempts: row.attempts }, 'outbox message delivered')
      }
    } else if (result.kind === 'skipped') {
      applied = await database.unitOfWork.run((tx) => this.claims.markSkipped(tx, held, result.reason))
      if (applied) {
        counters.skipped(row.channel)
        this.log.info({ ...context, reason: result.reason }, 'outbox message skipped')
      }
    } else {
      const attempts = row.attempts + 1
      const dead = result.permanent === true || attempts >= options.retry.maxAttempts
      // A receiver's Retry-After lengthens the wait, up to the policy's longest delay (D-60: dead after 10 failures still).
      // A date is read against this dispatcher's clock, the one `next` is counted on.
      const asked = Math.min(retryAfter(result.retryAfter ?? null, now) ?? 0, options.retry.maxDelayMs)
      const next = dead ? now : now + Math.max(retryDelay(attempts, options.retry, options.random), asked)
      applied = await database.unitOfWork.run(async (tx) => {
        const marked = await this.claims.markFailed(tx, held, { status: dead ? 'dead' : 'pending', attempts, next, error: result.error })
        if (marked && result.onFailed !== undefined) await result.onFailed(tx, now)
        return marked
      })
      if (applied) {
        counters.failed(row.channel)
        if (dead) {
          counters.dead(row.channel)
          this.log.error(
            { ...context, attempts, error: result.error },
            'outbox message is dead; `service-ordering outbox retry` sends it again'
          )
        } else {
          this.log.warn(
            { ...context, attempts, next_attempt_at: new Date(next).toISOString(), error: result.error },
            'outbox delivery failed; will retry'
          )
        }
      }
    }
    if (!applied) this.log.warn(context, 'outbox lease lost before the outcome was recorded; another dispatcher owns the row')
  }
}
