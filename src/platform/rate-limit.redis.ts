import type { Redis } from 'ioredis'
import type { Logger } from 'pino'
import type { Clock } from '../common/clock.js'
import { type RateDecision, RateLimiter, type RateLimitStore, type RateLimitStores } from './rate-limit.js'
import { RedisLink, type RedisRateLimitOptions } from './rate-limit.redis-link.js'

/**
 * Rate-limit counters shared by every API process through Redis (D-14), so a client
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
 * The stores the app counts in (D-14): shared through Redis when REDIS_URL is set, else
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
