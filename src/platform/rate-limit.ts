import type { Clock } from '../common/clock.js'

/** The outcome of counting one event against a limit. */
export interface RateDecision {
  allowed: boolean
  /** Seconds until the window resets; meaningful when not allowed. */
  retryAfterSeconds: number
}

/**
 * Where fixed-window rate-limit counters live (D-14, issue 10). `RateLimiter` below keeps them in
 * this process's memory; `RedisRateLimitStore` (rate-limit.redis.ts) shares them between API
 * processes when REDIS_URL is set. Callers always `await` the answer, which may or may not be a promise.
 */
export interface RateLimitStore {
  /** Counts one event under `key` and says whether it is within `limit` per `windowMs`. */
  hit(key: string, limit: number, windowMs: number): RateDecision | Promise<RateDecision>
  /** Says whether `key` has already used up `limit`, without counting anything. */
  exhausted(key: string, limit: number, windowMs: number): RateDecision | Promise<RateDecision>
  /** Takes back one event counted by `hit` in the current window (a reserved attempt that succeeded). */
  refund(key: string): void | Promise<void>
  /** Releases connections, if any. */
  close?(): Promise<void>
}

/**
 * Fixed-window counters kept in this process's memory (D-14). Several API processes each keep
 * their own counts, so a client spread over N processes gets up to N times the limit unless
 * REDIS_URL is set (rate-limit.redis.ts); documented in the README.
 */
export class RateLimiter implements RateLimitStore {
  private readonly windows = new Map<string, { count: number; resetAt: number }>()

  constructor(
    private readonly clock: Clock,
    private readonly maxKeys = 100_000
  ) {}

  private window(key: string, windowMs: number): { count: number; resetAt: number } {
    const now = this.clock.now()
    let window = this.windows.get(key)
    if (window === undefined || window.resetAt <= now) {
      if (this.windows.size >= this.maxKeys) this.sweep(now)
      window = { count: 0, resetAt: now + windowMs }
      this.windows.set(key, window)
    }
    return window
  }

  /** The window counting under `key` now, if there is one; an ended window counts nothing. */
  private liveWindow(key: string): { count: number; resetAt: number } | undefined {
    const window = this.windows.get(key)
    return window !== undefined && window.resetAt > this.clock.now() ? window : undefined
  }

  private decision(window: { count: number; resetAt: number }, limit: number): RateDecision {
    return {
      allowed: window.count <= limit,
      retryAfterSeconds: Math.max(1, Math.ceil((window.resetAt - this.clock.now()) / 1000))
    }
  }

  /** Counts one event under `key` and says whether it is within `limit` per `windowMs`. */
  hit(key: string, limit: number, windowMs: number): RateDecision {
    const window = this.window(key, windowMs)
    window.count += 1
    return this.decision(window, limit)
  }

  /** Says whether `key` has already used up `limit`, without counting anything. */
  exhausted(key: string, limit: number, windowMs: number): RateDecision {
    // Asking creates no window: only counted events take room among the `maxKeys` kept.
    const window = this.liveWindow(key)
    if (window === undefined) return { allowed: true, retryAfterSeconds: Math.max(1, Math.ceil(windowMs / 1000)) }
    // Allowed while the next event would still be within the limit.
    return this.decision(window, limit - 1)
  }

  /**
   * `exhausted(key, limit, …).allowed`, answered without creating a window or any object: the
   * check every admitted customer request makes twice (auth.ts `customerAdmittedAtOnce`).
   */
  hasRoom(key: string, limit: number): boolean {
    const window = this.liveWindow(key)
    return window === undefined || window.count < limit
  }

  /** Takes back one event counted by `hit` in the current window. */
  refund(key: string): void {
    const window = this.liveWindow(key)
    if (window !== undefined && window.count > 0) window.count -= 1
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) {
      if (window.resetAt <= now) this.windows.delete(key)
    }
    // Still full of live windows: drop the oldest rather than grow without bound.
    while (this.windows.size >= this.maxKeys) {
      const oldest = this.windows.keys().next().value
      if (oldest === undefined) break
      this.windows.delete(oldest)
    }
  }
}

/** D-14 limits, in one place. */
export const LIMITS = {
  failedSignInsPerEmail: { limit: 10, windowMs: 15 * 60_000 },
  signInCallsPerAddress: { limit: 60, windowMs: 60_000 }
} as const
