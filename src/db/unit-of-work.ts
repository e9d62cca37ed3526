import { CompiledQuery, type ControlledTransaction, type Kysely, type Transaction } from 'kysely'
import type { Dialect } from './dialect.js'
import type { DB } from './schema.js'
import { type SqliteDirect, SqliteTx } from './sqlite.js'
import type { SqliteCheckpointer } from './sqlite-checkpointer.js'
import type { CompiledStatement, Tx } from './statement.js'
import type { WriteOutcomes } from './write-outcomes.js'

/** The body of a use case: every statement it runs goes through `tx`; no network I/O inside. */
export type Work<T> = (tx: Tx) => Promise<T>

/** A gauge a unit of work offers to /metrics, read at scrape time. */
export interface UnitOfWorkGauge {
  name: string
  help: string
  labelNames: readonly string[]
  read(): Array<{ labels: Record<string, string>; value: number }>
}

/** Runs each use case in one database transaction (ARCHITECTURE 9). */
export interface UnitOfWork {
  run<T>(work: Work<T>): Promise<T>
  /** What this unit of work counts, if anything (SQLite's group commit: commits, checkpoints). */
  metrics?(): readonly UnitOfWorkGauge[]
}

/** A transaction whose statements compiled once run through Kysely, on its connection (PostgreSQL). */
class KyselyTx implements Tx {
  constructor(readonly db: Transaction<DB>) {}

  async rows<R>(statement: CompiledStatement, values: readonly unknown[]): Promise<R[]> {
    return (await this.db.executeQuery<R>(CompiledQuery.raw(statement.sql, values as unknown[]))).rows as R[]
  }

  async run(statement: CompiledStatement, values: readonly unknown[]): Promise<number> {
    const result = await this.db.executeQuery(CompiledQuery.raw(statement.sql, values as unknown[]))
    return Number(result.numAffectedRows ?? 0n)
  }
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
 * retried twice. `outcomes` is told of each commit and failure (/readyz).
 */
export function postgresUnitOfWork(db: Kysely<DB>, dialect: Dialect, outcomes?: WriteOutcomes): UnitOfWork {
  return {
    async run<T>(work: Work<T>): Promise<T> {
      for (let attempt = 1; ; attempt++) {
        try {
          const value = await db.transaction().execute((trx) => work(new KyselyTx(trx)))
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
    private readonly direct: SqliteDirect,
    /** Told of each commit; it checkpoints the WAL off the event loop. */
    readonly checkpointer?: SqliteCheckpointer,
    /** Told of each commit and failure (/readyz). */
    private readonly outcomes?: WriteOutcomes
  ) {}

  metrics(): readonly UnitOfWorkGauge[] {
    const counts = this.counts
    const gauges: UnitOfWorkGauge[] = [
      {
        name: 'sqlite_commits',
        help: 'SQLite write transactions committed (each one fsync).',
        labelNames: [],
        read: () => [{ labels: {}, value: counts.commits }]
      },
      {
        name: 'sqlite_committed_use_cases',
        help: 'Use cases carried by those commits (group commit).',
        labelNames: [],
        read: () => [{ labels: {}, value: counts.useCases }]
      }
    ]
    const checkpoints = this.checkpointer?.counts
    if (checkpoints === undefined) return gauges
    return [
      ...gauges,
      {
        name: 'sqlite_checkpoints',
        help: 'WAL checkpoints run off the event loop (a worker thread): done, skipped for another one running, failed.',
        labelNames: ['outcome'],
        read: () => [
          { labels: { outcome: 'done' }, value: checkpoints.runs },
          { labels: { outcome: 'busy' }, value: checkpoints.busy },
          { labels: { outcome: 'failed' }, value: checkpoints.failures }
        ]
      },
      {
        name: 'sqlite_wal_frames',
        help: 'Frames in the WAL at the end of the last checkpoint (4 KiB each).',
        labelNames: [],
        read: () => [{ labels: {}, value: checkpoints.walFrames }]
      }
    ]
  }

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
      value = await job.work(new SqliteTx(trx, this.direct))
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
      const tx = new SqliteTx(trx, this.direct)
      for (const job of batch) outcomes.push(await this.runInSavepoint(tx, job))
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

  private async runInSavepoint(tx: Tx, job: Job): Promise<Outcome> {
    const direct = this.direct
    // Run directly: two statements per use case, where Kysely's savepoint would add a transaction object.
    direct.run('savepoint unit_of_work', [])
    try {
      const value = await job.work(tx)
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
