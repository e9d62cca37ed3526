import type { PostgresPool, PostgresPoolClient } from 'kysely'
import pg from 'pg'
import { type QueryListeners, type QueryRunner, statementName } from './query-runner.js'

// int8 (COUNT, bigint ids and millisecond timestamps) as JS numbers: every such value here is far
// below 2^53. node-postgres returns strings by default.
const INT8_OID = 20
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser
}

export interface PostgresOptions {
  url: string
  poolMax: number
  statementTimeoutMs: number
  /** DATABASE_POOL_TIMEOUT_MS: longest wait for a connection (from the pool or a new one); default 3000. */
  poolTimeoutMs?: number
  /** DATABASE_POOL_QUEUE_MAX: callers that may wait for a busy pool at once; default 1000, 0 = none. */
  poolQueueMax?: number
}

/** The pool's own limits, kept beside it for the fail-fast check below (issue 10). */
const QUEUE_MAX = new WeakMap<pg.Pool, number>()

/**
 * Thrown instead of joining the wait queue of a pool whose every connection is busy and whose queue
 * is full. Its message contains "pool is exhausted", which `postgresDialect.isUnavailable` maps to
 * 503 `unavailable` with Retry-After (D-21), like pg-pool's own "timeout exceeded when trying to connect".
 */
export class PoolExhaustedError extends Error {
  override name = 'PoolExhaustedError'
  readonly code = 'POOL_EXHAUSTED'
  constructor(waiting: number) {
    super(`the connection pool is exhausted: every connection is busy and ${waiting} callers already wait`)
  }
}

/** Issue 10: refuses at once rather than queue behind DATABASE_POOL_QUEUE_MAX waiting callers. */
function admit(pool: pg.Pool): void {
  const queueMax = QUEUE_MAX.get(pool)
  if (queueMax === undefined) return
  // A free or creatable connection means no wait; only a full pool with a full queue refuses.
  if (pool.idleCount > 0 || pool.totalCount < (pool.options.max ?? 10)) return
  if (pool.waitingCount >= queueMax) throw new PoolExhaustedError(pool.waitingCount)
}

/**
 * Issue 25: a connection can lose its server at any moment of its life (a restart, a failover,
 * pg_terminate_backend), and node-postgres reports that as an 'error' event on the client. pg-pool
 * listens only while a client is idle or inside pool.query: one checked out through pool.connect()
 * (Kysely, between a transaction's statements) had no listener, and the event ended the process.
 * Every client of the pool listens from its creation to its end and keeps the error, so that its
 * release destroys it instead of lending it again (kyselyPostgresPool).
 */
class ListeningClient extends pg.Client {
  lost: Error | undefined
  constructor(config?: string | pg.ClientConfig) {
    super(config)
    this.on('error', (error: Error) => {
      this.lost ??= error
    })
  }
}

// SQLSTATE classes that end or taint the session: 08 connection exception, 57P operator
// intervention (terminated, shutting down, crash), XX internal error.
const SESSION_ENDING = /^(08|57P|XX)/

/**
 * Whether a failed statement leaves its connection unfit for the next use case: anything but an
 * error the server reported on a live session. A lost socket, a FATAL, and a query that got no
 * answer in time (query_timeout, issue 8: the connection still waits for it) all spoil it.
 */
function spoils(error: unknown): boolean {
  return !(error instanceof pg.DatabaseError) || SESSION_ENDING.test(error.code ?? '')
}

/**
 * A connection pool that fails fast (503) when exhausted instead of queueing without bound: a
 * caller waits at most `poolTimeoutMs` for a connection, and at most `poolQueueMax` callers wait.
 */
export function openPostgresPool(options: PostgresOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolMax,
    connectionTimeoutMillis: options.poolTimeoutMs ?? 3000,
    idleTimeoutMillis: 30_000,
    statement_timeout: options.statementTimeoutMs === 0 ? undefined : options.statementTimeoutMs,
    // Issue 8: the server's statement timeout cannot end a wait for a server that no longer answers
    // (a network partition); this client-side bound, a second past it, turns such a wait into 503.
    query_timeout: options.statementTimeoutMs === 0 ? undefined : options.statementTimeoutMs + 1000,
    application_name: 'service-ordering',
    types,
    Client: ListeningClient
  })
  // pg-pool re-emits an idle client's loss here and drops the client; the next query reconnects.
  pool.on('error', () => {})
  QUEUE_MAX.set(pool, options.poolQueueMax ?? 1000)
  return pool
}

function namedQuery(client: pg.PoolClient | pg.Pool, sqlText: string, values: readonly unknown[]) {
  const name = statementName(sqlText)
  return name === undefined
    ? client.query(sqlText, values as unknown[])
    : client.query({ name, text: sqlText, values: values as unknown[] })
}

/** The pool as Kysely's PostgresDialect sees it; SQL compiled once runs as a named prepared statement. */
export function kyselyPostgresPool(pool: pg.Pool): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      admit(pool)
      const client = await pool.connect()
      // A spoiled connection (issues 8, 25) is destroyed on release, not handed to the next use case;
      // so is one that lost its server while held with no statement running (ListeningClient).
      let spoiled: Error | undefined
      const query = (sqlText: string, values: readonly unknown[]) =>
        namedQuery(client, sqlText, values).catch((error: unknown) => {
          if (spoils(error)) spoiled ??= error instanceof Error ? error : new Error(String(error))
          throw error
        })
      return {
        query: query as unknown as PostgresPoolClient['query'],
        release: () => client.release(spoiled ?? (client instanceof ListeningClient ? client.lost : undefined))
      }
    },
    end: () => pool.end()
  }
}

/** Reads through named prepared statements on the pool. */
export function postgresRunner(pool: pg.Pool, listeners: QueryListeners): QueryRunner {
  return {
    async rows<R>(sqlText: string, parameters: readonly unknown[]): Promise<R[]> {
      if (listeners.active) listeners.emit(sqlText)
      admit(pool)
      const result = await namedQuery(pool, sqlText, parameters)
      return result.rows as R[]
    }
  }
}
