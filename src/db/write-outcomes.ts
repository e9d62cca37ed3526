import type { Dialect } from './dialect.js'

/**
 * Issue 25: what the unit of work last saw of writes, for /readyz (platform/write-readiness.ts): when
 * a use case last committed, and when one last failed because the database cannot take writes now
 * (`dialect.isUnavailable`: a full disk, a read-only or unreachable database). Each is one timestamp
 * on the monotonic clock, set as it happens.
 */
export class WriteOutcomes {
  /** performance.now() of the last commit; -Infinity before the first. */
  committedAt = Number.NEGATIVE_INFINITY
  /** performance.now() of the last write the database refused; -Infinity for none. */
  refusedAt = Number.NEGATIVE_INFINITY

  constructor(private readonly dialect: Dialect) {}

  /** A use case (or a batch of them) committed. */
  committed(): void {
    this.committedAt = performance.now()
  }

  /** A use case failed with `error`; only a database that cannot take writes now is remembered. */
  failed(error: unknown): void {
    if (this.dialect.isUnavailable(error)) this.refusedAt = performance.now()
  }
}
