import { createHash } from 'node:crypto'
import { Redis, type Result } from 'ioredis'
import type { Logger } from 'pino'
import type { Clock } from '../common/clock.js'

/**
 * One fixed window, atomically: count (or only read) the key, start its expiry with the first
 * count, answer the count and the milliseconds left. KEYS[1] the counter; ARGV[1] the window in ms;
 * ARGV[2] '1' to count, '0' to read.
 */
const WINDOW_SCRIPT = `
local count
if ARGV[2] == '1' then
  count = redis.call('INCR', KEYS[1])
else
  count = tonumber(redis.call('GET', KEYS[1]) or '0')
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
elseif ttl == -2 then
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`

/** Takes back one counted event while the window lives; never below zero. KEYS[1] the counter. */
const REFUND_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 0 then redis.call('DECR', KEYS[1]) end
return 0
`

// The scripts' commands, as `defineCommand` adds them to every connection (ioredis's documented typing).
declare module 'ioredis' {
  interface RedisCommander<Context> {
    rateWindow(key: string, windowMs: number, count: '0' | '1'): Result<[number, number], Context>
    rateRefund(key: string): Result<number, Context>
  }
}

// While Redis stays connected but does not answer, one PING at most this often finds out when it does.
const PROBE_EVERY_MS = 1000

/** What the Redis store is built from. */
export interface RedisRateLimitOptions {
  /** REDIS_URL: `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS). */
  url: string
  /** The clock of the per-process counters used while Redis cannot answer. */
  clock: Clock
  logger: Logger
  /** Put before every key, so several services (or tests) can share one Redis. */
  keyPrefix?: string
  /** A command not answered within this fails over to the per-process counters; default 250 ms. */
  commandTimeoutMs?: number
  /** RATE_LIMIT_MAX_KEYS: the bound of the per-process counters used while Redis cannot answer. */
  maxKeys?: number
}

/**
 * Whether Redis may drop keys before they expire: any maxmemory-policy but `noeviction` lets it
 * evict a counter at its limit when memory runs short, which D-14 forbids.
 */
function evictsBeforeExpiry(policy: string): boolean {
  return policy !== 'noeviction'
}

/** The connection and its health, shared by every store of one app (one warning per outage). */
export class RedisLink {
  readonly redis: Redis
  readonly log: Logger
  readonly prefix: string
  private degraded = false
  private closed = false
  private closing: Promise<void> | undefined
  private probing = false
  private lastProbeAt = 0
  private policyChecked = false

  constructor(options: RedisRateLimitOptions) {
    this.log = options.logger.child({ component: 'rate-limit' })
    this.prefix = options.keyPrefix ?? 'service-ordering:rate:'
    this.redis = new Redis(options.url, {
      // Fail fast instead of queueing: a command issued while disconnected rejects at once and
      // the fallback answers; one in flight when the connection drops is not retried.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? 250,
      connectTimeout: 2000,
      // Reconnect for ever, backing off to one attempt every 5 s.
      retryStrategy: (times) => Math.min(times * 200, 5000),
      // Commands issued in the same tick (many requests at once) share one round trip.
      enableAutoPipelining: true,
      lazyConnect: false
    })
    this.redis.defineCommand('rateWindow', { numberOfKeys: 1, lua: WINDOW_SCRIPT })
    this.redis.defineCommand('rateRefund', { numberOfKeys: 1, lua: REFUND_SCRIPT })
    // Without a listener ioredis prints every connection error; one warning per outage is enough.
    this.redis.on('error', (error: Error) => this.degrade(error))
    this.redis.on('ready', () => {
      if (this.degraded) this.recover()
      else this.log.debug('rate-limit counters are shared through Redis')
      this.checkEvictionPolicy()
    })
    this.redis.on('close', () => {
      if (!this.closed) this.degrade(new Error('the connection to Redis closed'))
    })
  }

  /**
   * Whether to ask Redis. Not while it is known not to answer: a connection that stays open but
   * answers nothing (a hung Redis, a network that drops packets) would otherwise cost every
   * request the command timeout. Meanwhile a PING now and then finds out when it answers again.
   */
  usable(): boolean {
    if (this.redis.status !== 'ready') return false
    if (!this.degraded) return true
    this.probe()
    return false
  }

  /** Counts one event (`count` '1') or only reads the counter: its count and the milliseconds left in its window. */
  window(key: string, windowMs: number, count: '0' | '1'): Promise<[number, number]> {
    return this.redis.rateWindow(key, windowMs, count)
  }

  /** Takes back one counted event while the window lives; never below zero. */
  refund(key: string): Promise<number> {
    return this.redis.rateRefund(key)
  }

  key(key: string): string {
    const colon = key.indexOf(':')
    const name = colon === -1 ? 'limit' : key.slice(0, colon)
    return `${this.prefix}${name}:${createHash('sha256').update(key).digest('base64url')}`
  }

  degrade(error: Error): void {
    if (this.closed || this.degraded) return
    this.degraded = true
    this.log.warn(
      { err: { type: error.name, message: error.message } },
      'Redis cannot answer: rate-limit counters fall back to per-process counting until it does'
    )
  }

  close(): Promise<void> {
    this.closed = true
    this.closing ??= (async () => {
      try {
        await Promise.race([this.redis.quit(), new Promise((resolve) => setTimeout(resolve, 1000).unref())])
      } catch {
        // Not connected: nothing to say goodbye to.
      } finally {
        this.redis.disconnect()
      }
    })()
    return this.closing
  }

  private probe(): void {
    const now = Date.now()
    if (this.probing || this.closed || now - this.lastProbeAt < PROBE_EVERY_MS) return
    this.probing = true
    this.lastProbeAt = now
    this.redis
      .ping()
      .then(
        () => {
          if (this.degraded && !this.closed) this.recover()
        },
        () => {}
      )
      .finally(() => {
        this.probing = false
      })
  }

  private recover(): void {
    this.degraded = false
    this.log.info('Redis answers again: rate-limit counters are shared between processes again')
  }

  /** D-14: a counter at its limit must live until its window ends; say so once if Redis may evict it sooner. */
  private checkEvictionPolicy(): void {
    if (this.policyChecked) return
    this.policyChecked = true
    this.redis.config('GET', 'maxmemory-policy').then(
      (reply) => {
        const policy = String((reply as string[])[1] ?? '')
        if (evictsBeforeExpiry(policy)) {
          this.log.warn(
            { maxmemory_policy: policy },
            'Redis may evict rate-limit counters before their window ends: set maxmemory-policy noeviction (D-14)'
          )
        } else this.log.debug({ maxmemory_policy: policy }, 'Redis keeps every rate-limit counter until its window ends')
      },
      (error: Error) =>
        this.log.info(
          { err: { type: error.name, message: error.message } },
          'Redis did not say its maxmemory-policy; it must be noeviction (D-14)'
        )
    )
  }
}
