/**
 * A failure below SQL, with our own code: the database cannot be reached, did not answer in time,
 * or was closed. The driver edge (sqlite.ts, postgres.ts) wraps the driver's own failures, which
 * carry no SQLSTATE, into this, so that nothing classifies errors by their English text (D-21: 503).
 */
export class DatabaseUnavailableError extends Error {
  override name = 'DatabaseUnavailableError'
  readonly code: DatabaseFailureCode = 'DATABASE_UNAVAILABLE'

  constructor(message: string, options?: ErrorOptions) {
    super(message, options)
  }
}

/** The codes of our own database failures (`DatabaseUnavailableError` and its kinds). */
export type DatabaseFailureCode = 'DATABASE_UNAVAILABLE' | 'DATABASE_CLOSED' | 'POOL_EXHAUSTED'

/** A statement or a use case on a database that was closed (shutdown, or under a running app). */
class DatabaseClosedError extends DatabaseUnavailableError {
  override name = 'DatabaseClosedError'
  override readonly code = 'DATABASE_CLOSED'

  constructor() {
    super('the database is closed')
  }
}

/**
 * Thrown instead of joining the wait queue of a pool whose every connection is busy and whose queue
 * is full (DATABASE_POOL_QUEUE_MAX): 503 at once rather than a wait.
 */
export class PoolExhaustedError extends DatabaseUnavailableError {
  override name = 'PoolExhaustedError'
  override readonly code = 'POOL_EXHAUSTED'

  constructor(waiting: number) {
    super(`the connection pool is exhausted: every connection is busy and ${waiting} callers already wait`)
  }
}

/** A driver failure (a lost connection, a connect that failed or timed out) as our own error; its cause kept for the log. */
export function unavailable(cause: unknown): DatabaseUnavailableError {
  if (cause instanceof DatabaseUnavailableError) return cause
  const message = cause instanceof Error ? cause.message : String(cause)
  return new DatabaseUnavailableError(`the database cannot be reached: ${message}`, { cause })
}

/** True for our own database failures (by their code, so a copy of this module knows them too). */
export function isDatabaseFailure(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined
  return code === 'DATABASE_UNAVAILABLE' || code === 'DATABASE_CLOSED' || code === 'POOL_EXHAUSTED'
}

/** Whether a database was closed: set once by its close(), read by the driver edge. */
export class OpenState {
  closed = false

  /** Throws `DatabaseClosedError` once the database was closed. */
  assertOpen(): void {
    if (this.closed) throw new DatabaseClosedError()
  }
}
