import { createHash } from 'node:crypto'
import { Redis } from 'ioredis'
import type { Logger } from 'pino'
import type { Clock } from '../common/clock.js'
import { type RateDecision, RateLimiter, type RateLimitStore, type RateLimitStores } from './rate-limit.js'

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

type WindowCommand = (key: string, windowMs: number, count: '0' | '1') => Promise<[number, number]>

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
export function evictsBeforeExpiry(policy: string): boolean {
  return policy !== 'noeviction'
}

/** The connection and its health, shared by every store of one app (one warning per outage). */
class RedisLink {
  readonly redis: Redis
  readonly window: WindowCommand
  readonly refund: (key: string) => Promise<number>
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
    this.window = (this.redis as unknown as { rateWindow: WindowCommand }).rateWindow.bind(this.redis)
    this.refund = (this.redis as unknown as { rateRefund: (key: string) => Promise<number> }).rateRefund.bind(this.redis)
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

/**
 * Rate-limit counters shared by every API process through Redis (D-14, issue 10), so a client
 * spread over N processes still gets the limit once, not N times. Each key expires with its window
 * and nothing else removes it, provided Redis runs with `maxmemory-policy noeviction` (its default;
 * any other policy is warned about at connect).
 *
 * A rate limit must not turn into an outage: when Redis cannot answer (not connected, a command
 * failing or slower than `commandTimeoutMs`) this store **fails open to per-process counters** —
 * each process counts on its own, as without REDIS_URL, so the limit still holds per process — and
 * logs one warning when that starts and one line when Redis answers again. It never queues commands
 * while disconnected (no offline queue) and never delays the start or /readyz, which depend on the
 * database only (D-71).
 *
 * Keys hold no e-mail address or client address in the clear: the part after the limit's name is
 * hashed (`<prefix><name>:<sha256 base64url>`).
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly link: RedisLink
  private readonly fallback: RateLimiter
  /** Decisions taken by the per-process fallback since start (tests, diagnostics). */
  fallbacks = 0

  constructor(
    private readonly options: RedisRateLimitOptions,
    link?: RedisLink
  ) {
    this.link = link ?? new RedisLink(options)
    this.fallback = new RateLimiter(options.clock, options.maxKeys)
  }

  /** The connection (tests wait for it to be ready). */
  get redis(): Redis {
    return this.link.redis
  }

  /**
   * Another store on the same connection, with per-process fallback counters of its own: a flood
   * counted in one never pushes out the other's counters while Redis cannot answer (D-14).
   */
  alongside(): RedisRateLimitStore {
    return new RedisRateLimitStore(this.options, this.link)
  }

  /** Counts one event under `key` across all processes; per process while Redis cannot answer. */
  hit(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    return this.decide(key, limit, windowMs, '1')
  }

  /** Whether `key` has used up `limit` across all processes, without counting. */
  exhausted(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    return this.decide(key, limit, windowMs, '0')
  }

  /** Takes back one counted event, where it was counted: Redis, or this process while Redis cannot answer. */
  async refund(key: string): Promise<void> {
    if (this.link.usable()) {
      try {
        await this.link.refund(this.link.key(key))
        return
      } catch (error) {
        this.link.degrade(error as Error)
      }
    }
    this.fallback.refund(key)
  }

  /** Closes the connection, shared with the stores `alongside` this one (app shutdown). */
  close(): Promise<void> {
    return this.link.close()
  }

  private async decide(key: string, limit: number, windowMs: number, count: '0' | '1'): Promise<RateDecision> {
    if (this.link.usable()) {
      try {
        const [current, ttlMs] = await this.link.window(this.link.key(key), windowMs, count)
        const retryAfterSeconds = Math.max(1, Math.ceil(ttlMs / 1000))
        // Same rules as the in-memory limiter: a hit is allowed up to `limit`, a check below it.
        return { allowed: count === '1' ? current <= limit : current < limit, retryAfterSeconds }
      } catch (error) {
        this.link.degrade(error as Error)
      }
    }
    this.fallbacks++
    return count === '1' ? this.fallback.hit(key, limit, windowMs) : this.fallback.exhausted(key, limit, windowMs)
  }
}

/**
 * The stores the app counts in (issue 10, D-14): shared through Redis when REDIS_URL is set, else
 * this process's memory (with several processes a client may get the limit once per process). One
 * store for sign-in and reset, another for tracking, each bounded by `maxKeys` counters in memory.
 */
export function createRateLimitStores(options: {
  redisUrl: string | null
  clock: Clock
  logger: Logger
  maxKeys?: number
}): RateLimitStores {
  if (options.redisUrl === null) {
    return {
      signIn: new RateLimiter(options.clock, options.maxKeys),
      tracking: new RateLimiter(options.clock, options.maxKeys),
      close: async () => {}
    }
  }
  const signIn = new RedisRateLimitStore({ url: options.redisUrl, clock: options.clock, logger: options.logger, maxKeys: options.maxKeys })
  return { signIn, tracking: signIn.alongside(), close: () => signIn.close() }
}
