import type { Clock } from '../common/clock.js'

/** The outcome of counting one event against a limit. */
export interface RateDecision {
  allowed: boolean
  /** Seconds until the window resets; meaningful when not allowed. */
  retryAfterSeconds: number
}

/**
 * Where fixed-window rate-limit counters live (D-14). `RateLimiter` below keeps them in
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
  /**
   * `exhausted(key, limit, …).allowed`, answered at once and without allocating, by a store that can
   * (this process's memory): the check every admitted customer request makes twice (auth.ts).
   */
  hasRoomNow?(key: string, limit: number): boolean
  /** Releases connections, if any. */
  close?(): Promise<void>
}

/** One fixed-window counter: its events, when the window ends, its limit, and its fill level. */
interface Window {
  count: number
  resetAt: number
  limit: number
  level: number
}

// Counters under their limit are kept in this many levels of fill, emptiest forgotten first; the
// level after them holds the counters at their limit, which are never forgotten in their window (D-14).
const UNDER_LEVELS = 4
const REACHED = UNDER_LEVELS

const levelOf = (count: number, limit: number): number => (count >= limit ? REACHED : Math.floor((count * UNDER_LEVELS) / limit))

/**
 * Fixed-window counters kept in this process's memory (D-14). Several API processes each keep
 * their own counts, so a client spread over N processes gets up to N times the limit unless
 * REDIS_URL is set (rate-limit.redis.ts); documented in the README.
 *
 * At most `maxKeys` counters are kept. To count a new key when full, the store forgets a counter
 * under its limit: the emptiest, oldest first, so a flood of one-call keys pushes out only its own
 * kind. A counter at its limit is never forgotten before its window ends (D-14): when every counter
 * kept is at its limit, a new key is refused (not allowed, nothing kept) until a window ends. That
 * state costs an attacker `maxKeys` keys each driven to its limit within one window.
 */
export class RateLimiter implements RateLimitStore {
  private readonly windows = new Map<string, Window>()
  // The keys of `windows` by level, each in the order they reached it (oldest first).
  private readonly levels: Set<string>[] = Array.from({ length: REACHED + 1 }, () => new Set<string>())
  // No counter at its limit ends before this: sweeping the reached level sooner would find nothing.
  private nextReachedEnd = Number.POSITIVE_INFINITY
  /** New keys refused because every counter kept was at its limit (diagnostics, tests). */
  refusedForRoom = 0

  constructor(
    private readonly clock: Clock,
    readonly maxKeys = 100_000
  ) {}

  /** How many counters are kept, live or ended. */
  get size(): number {
    return this.windows.size
  }

  /** The window counting under `key` now, if there is one; an ended window counts nothing. */
  private liveWindow(key: string): Window | undefined {
    const window = this.windows.get(key)
    return window !== undefined && window.resetAt > this.clock.now() ? window : undefined
  }

  private decision(window: Window, limit: number): RateDecision {
    return {
      allowed: window.count <= limit,
      retryAfterSeconds: Math.max(1, Math.ceil((window.resetAt - this.clock.now()) / 1000))
    }
  }

  /** Counts one event under `key` and says whether it is within `limit` per `windowMs`. */
  hit(key: string, limit: number, windowMs: number): RateDecision {
    const now = this.clock.now()
    let window = this.windows.get(key)
    if (window === undefined) {
      if (!this.makeRoom(now)) return this.refuseForRoom(now, windowMs)
      window = { count: 0, resetAt: now + windowMs, limit, level: 0 }
      this.windows.set(key, window)
      this.levels[0]!.add(key)
    } else if (window.resetAt <= now) {
      // A new window for a kept key: the newest of the emptiest level.
      window.count = 0
      window.resetAt = now + windowMs
      this.levels[window.level]!.delete(key)
      this.levels[0]!.add(key)
      window.level = 0
    }
    window.limit = limit
    window.count += 1
    this.settle(key, window)
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

  /** `exhausted(key, limit, …).allowed`, answered without creating a window or any object. */
  hasRoomNow(key: string, limit: number): boolean {
    const window = this.liveWindow(key)
    return window === undefined || window.count < limit
  }

  /** Takes back one event counted by `hit` in the current window. */
  refund(key: string): void {
    const window = this.liveWindow(key)
    if (window === undefined || window.count === 0) return
    window.count -= 1
    this.settle(key, window)
  }

  /** Moves a counter to the level of its count, as the newest there. */
  private settle(key: string, window: Window): void {
    const level = levelOf(window.count, window.limit)
    if (level === REACHED && window.resetAt < this.nextReachedEnd) this.nextReachedEnd = window.resetAt
    if (level === window.level) return
    this.levels[window.level]!.delete(key)
    this.levels[level]!.add(key)
    window.level = level
  }

  /** Room for one more counter: forgets the emptiest, oldest one under its limit, else ended ones at it. */
  private makeRoom(now: number): boolean {
    if (this.windows.size < this.maxKeys) return true
    for (let level = 0; level < REACHED; level++) {
      const oldest = this.levels[level]!.values().next()
      if (oldest.done !== true) {
        this.forget(oldest.value)
        return true
      }
    }
    if (now >= this.nextReachedEnd) this.sweepReached(now)
    return this.windows.size < this.maxKeys
  }

  private sweepReached(now: number): void {
    let next = Number.POSITIVE_INFINITY
    for (const key of this.levels[REACHED]!) {
      const window = this.windows.get(key)!
      if (window.resetAt <= now) this.forget(key)
      else if (window.resetAt < next) next = window.resetAt
    }
    this.nextReachedEnd = next
  }

  private forget(key: string): void {
    const window = this.windows.get(key)
    if (window === undefined) return
    this.levels[window.level]!.delete(key)
    this.windows.delete(key)
  }

  /** Every counter kept is at its limit: refuse the new key until the first of them ends (D-14). */
  private refuseForRoom(now: number, windowMs: number): RateDecision {
    this.refusedForRoom++
    const waitMs = Math.min(windowMs, this.nextReachedEnd - now)
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) }
  }
}

/**
 * The app's counters, one store per family of limits, so that a flood counted under one can never
 * push out the counters of another (D-14): sign-in and password reset, and the tracking page.
 */
export interface RateLimitStores {
  readonly signIn: RateLimitStore
  readonly tracking: RateLimitStore
  /** Releases connections, if any. */
  close(): Promise<void>
}
