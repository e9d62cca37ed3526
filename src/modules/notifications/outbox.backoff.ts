/** When a failed delivery is tried again, and when to give up (D-60). */
export interface RetryPolicy {
  /** Delay ceiling after the first failure; it doubles with every further failure. */
  readonly baseDelayMs: number
  /** Largest delay ceiling, however many failures. */
  readonly maxDelayMs: number
  /** Failures after which a row is dead (D-60: 10). */
  readonly maxAttempts: number
}

/** D-60: 1 s doubling to at most 1 h, dead after the 10th failure (about 8.5 minutes of retries). */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { baseDelayMs: 1000, maxDelayMs: 3_600_000, maxAttempts: 10 }

/**
 * The delay before the next attempt after `failures` failures (1 or more): exponential with "equal
 * jitter", a random point in the upper half of the ceiling. The jitter spreads out rows that failed
 * together (a receiver that was down), while the lower bound keeps every delay longer than the one
 * before it until the cap is reached.
 */
export function retryDelay(failures: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const exponent = Math.max(0, failures - 1)
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(exponent, 52))
  const half = ceiling / 2
  return Math.floor(half + random() * half)
}
