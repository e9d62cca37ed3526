import type { ControlledTransaction, Kysely, Transaction } from 'kysely'
import type { Dialect } from './dialect.js'
import { allowDirect, type DirectStatements, forgetDirect } from './direct.js'
import type { DB } from './schema.js'
import type { SqliteCheckpointer } from './sqlite-checkpointer.js'
import type { WriteOutcomes } from './write-outcomes.js'

/** The body of a use case: every statement it runs goes through `trx`; no network I/O inside. */
export type Work<T> = (trx: Transaction<DB>) => Promise<T>

/** Runs each use case in one database transaction (ARCHITECTURE 9). */
export interface UnitOfWork {
  run<T>(work: Work<T>): Promise<T>
}

/**
 * Thrown by a use case that must start over in a new transaction: on PostgreSQL a failed statement
 * aborts its transaction, so a conflict the use case expects (a drawn transaction code already
 * taken, D-50) is overcome by running it all again. Only the PostgreSQL unit of work runs it again;
 * SQLite's use cases never need to (a statement that fails there leaves its transaction usable).
 */
export class RetryUseCase extends Error {
  constructor(reason: string, options?: ErrorOptions) {
    super(`use case to be run again: ${reason}`, options)
    this.name = 'RetryUseCase'
  }
}

/**
 * PostgreSQL: one pooled connection and transaction per use case. A deadlock or serialisation
 * failure (possible when two use cases lock rows in different orders), or a `RetryUseCase`, is
 * retried twice. `outcomes` is told of each commit and failure (/readyz, issue 25).
 */
export function postgresUnitOfWork(db: Kysely<DB>, dialect: Dialect, outcomes?: WriteOutcomes): UnitOfWork {
  return {
    async run<T>(work: Work<T>): Promise<T> {
      for (let attempt = 1; ; attempt++) {
        try {
          const value = await db.transaction().execute(work)
          outcomes?.committed()
          return value
        } catch (error) {
          if (attempt >= 3 || !(error instanceof RetryUseCase || dialect.isRetryable(error))) {
            outcomes?.failed(error)
            throw error
          }
        }
      }
    }
  }
}

interface Job {
  work: Work<unknown>
  resolve(value: unknown): void
  reject(error: unknown): void
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown }

// Large enough to absorb a burst from many connections, small enough to bound one batch's latency.
const MAX_BATCH = 64

/**
 * SQLite group commit: use cases that arrive while a commit is under way are run together in the
 * next database transaction, each inside its own savepoint, and all acknowledged after one durable
 * COMMIT. A failing use case rolls back to its savepoint and fails alone; a failing COMMIT fails
 * the whole batch, none of which was acknowledged. SQLite allows one writer at a time, so this is
 * how durable writes (one fsync per commit) reach more than a few hundred per second.
 */
export class SqliteGroupCommit implements UnitOfWork {
  private readonly queue: Job[] = []
  private draining = false
  /** Commits made and use cases they carried; their ratio is the mean batch size (/metrics). */
  readonly counts = { commits: 0, useCases: 0 }

  /**
   * `direct`: the transaction's statements compiled once and the savepoints run straight on the
   * writer connection (sqlite.ts `SqliteDirect`), not through Kysely's layers.
   */
  constructor(
    private readonly db: Kysely<DB>,
    private readonly direct: DirectStatements,
    /** Told of each commit; it checkpoints the WAL off the event loop. */
    readonly checkpointer?: SqliteCheckpointer,
    /** Told of each commit and failure (/readyz, issue 25). */
    private readonly outcomes?: WriteOutcomes
  ) {}

  run<T>(work: Work<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work: work as Work<unknown>, resolve: resolve as (value: unknown) => void, reject })
      if (!this.draining) {
        this.draining = true
        // better-sqlite3 is synchronous: draining at once would run BEGIN … COMMIT (and its fsync)
        // inside this request's microtasks, before any other request is even read. Waiting for
        // the check phase lets every request read in this I/O phase join the batch.
        setImmediate(() => void this.drain())
      }
    })
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH)
        if (batch.length === 1) await this.runAlone(batch[0]!)
        else await this.runBatch(batch)
        // Let the requests that arrived during this commit reach the queue before the next batch.
        await new Promise<void>((resolve) => setImmediate(resolve))
      }
    } finally {
      this.draining = false
    }
  }

  private async runAlone(job: Job): Promise<void> {
    let trx: ControlledTransaction<DB>
    try {
      trx = await this.db.startTransaction().execute()
    } catch (error) {
      this.outcomes?.failed(error)
      job.reject(error)
      return
    }
    this.counts.commits++
    this.counts.useCases++
    let value: unknown
    try {
      value = await this.withDirect(trx, () => job.work(trx))
      await trx.commit().execute()
      this.checkpointer?.committed()
      this.outcomes?.committed()
    } catch (error) {
      await trx
        .rollback()
        .execute()
        .catch(() => {})
      this.outcomes?.failed(error)
      job.reject(error)
      return
    }
    job.resolve(value)
  }

  private async runBatch(batch: Job[]): Promise<void> {
    let trx: ControlledTransaction<DB>
    try {
      trx = await this.db.startTransaction().execute()
    } catch (error) {
      this.outcomes?.failed(error)
      for (const job of batch) job.reject(error)
      return
    }
    this.counts.commits++
    this.counts.useCases += batch.length
    const outcomes: Outcome[] = []
    try {
      await this.withDirect(trx, async () => {
        for (const job of batch) outcomes.push(await this.runInSavepoint(trx, job))
      })
      await trx.commit().execute()
      this.checkpointer?.committed()
      this.outcomes?.committed()
    } catch (error) {
      await trx
        .rollback()
        .execute()
        .catch(() => {})
      this.outcomes?.failed(error)
      for (const job of batch) job.reject(error)
      return
    }
    batch.forEach((job, index) => {
      const outcome = outcomes[index]!
      if (outcome.ok) job.resolve(outcome.value)
      else {
        this.outcomes?.failed(outcome.error)
        job.reject(outcome.error)
      }
    })
  }

  private async withDirect<T>(trx: ControlledTransaction<DB>, body: () => Promise<T>): Promise<T> {
    allowDirect(trx, this.direct)
    try {
      return await body()
    } finally {
      forgetDirect(trx)
    }
  }

  private async runInSavepoint(trx: ControlledTransaction<DB>, job: Job): Promise<Outcome> {
    const direct = this.direct
    // Run directly: two statements per use case, where Kysely's savepoint would add a transaction object.
    direct.run('savepoint unit_of_work', [])
    try {
      const value = await job.work(trx)
      direct.run('release unit_of_work', [])
      return { ok: true, value }
    } catch (error) {
      // Failures of the savepoint commands themselves propagate and fail the batch.
      direct.run('rollback to unit_of_work', [])
      direct.run('release unit_of_work', [])
      return { ok: false, error }
    }
  }
}
