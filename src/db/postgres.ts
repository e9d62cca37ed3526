import type { PostgresPool as KyselyPostgresPool, PostgresCursor, PostgresPoolClient, PostgresQueryResult } from 'kysely'
import pg from 'pg'
import { OpenState, PoolExhaustedError, unavailable } from './errors.js'
import type { QueryListeners } from './query-listeners.js'
import type { CompiledStatement, Reader } from './statement.js'

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

/**
 * Issue 25: a connection can lose its server at any moment of its life (a restart, a failover,
 * pg_terminate_backend), and node-postgres reports that as an 'error' event on the client. pg-pool
 * listens only while a client is idle or inside pool.query: one checked out through pool.connect()
 * (Kysely, between a transaction's statements) had no listener, and the event ended the process.
 * Every client of the pool listens from its creation to its end and keeps the error, so that its
 * release destroys it instead of lending it again (PostgresPool).
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

/** The loss a client heard while held (ListeningClient), if any. */
function lostOf(client: pg.PoolClient): Error | undefined {
  return client instanceof ListeningClient ? client.lost : undefined
}

// SQLSTATE classes that end or taint the session: 08 connection exception, 57P operator
// intervention (terminated, shutting down, crash), XX internal error.
const SESSION_ENDING = /^(08|57P|XX)/

/**
 * Whether a failed statement leaves its connection unfit for the next use case: anything but an
 * error the server reported on a live session. A lost socket, a FATAL, and a query that got no
 * answer in time (query_timeout: the connection still waits for it) all spoil it.
 */
function spoils(error: unknown): boolean {
  return !(error instanceof pg.DatabaseError) || SESSION_ENDING.test(error.code ?? '')
}

/**
 * A failed statement as the rest of the app sees it: an error the server reported keeps its
 * SQLSTATE; a failure of the driver itself (a lost socket, a closed client, no answer within
 * query_timeout) becomes our own `DatabaseUnavailableError`. A TypeError is a misuse of the driver: ours.
 */
function fromDriver(error: unknown): unknown {
  return error instanceof pg.DatabaseError || error instanceof TypeError ? error : unavailable(error)
}

/** What Kysely reads of a result's command: whether rows were changed (INSERT, UPDATE, DELETE, MERGE). */
function commandOf(command: string): PostgresQueryResult<unknown>['command'] {
  switch (command) {
    case 'INSERT':
    case 'UPDATE':
    case 'DELETE':
    case 'MERGE':
      return command
    default:
      return 'SELECT'
  }
}

/**
 * A pooled connection as Kysely's PostgresDialect uses it: SQL compiled once runs as its named
 * prepared statement. A spoiled connection (issues 8, 25) is destroyed on release, not handed to
 * the next use case; so is one that lost its server while held with no statement running.
 */
class KyselyClient implements PostgresPoolClient {
  private spoiled: Error | undefined

  constructor(
    private readonly client: pg.PoolClient,
    private readonly names: ReadonlyMap<string, string>
  ) {}

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>
  query<R>(text: string | PostgresCursor<R>, parameters: ReadonlyArray<unknown> = []): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    // Kysely passes a cursor only to stream rows, which nothing here does.
    if (typeof text !== 'string') throw new TypeError('cursors are not supported')
    const name = this.names.get(text)
    // The interface hands over a read-only array; node-postgres types its values as a mutable one.
    const values = [...parameters]
    const sent = name === undefined ? this.client.query(text, values) : this.client.query({ name, text, values })
    return sent.then(
      (result) => ({ command: commandOf(result.command), rowCount: result.rowCount ?? 0, rows: result.rows }),
      (error: unknown) => {
        if (spoils(error)) this.spoiled ??= error instanceof Error ? error : new Error(String(error))
        throw fromDriver(error)
      }
    )
  }

  release(): void {
    this.client.release(this.spoiled ?? lostOf(this.client))
  }
}

/**
 * The connection pool of one database, with its own limits: a caller waits at most `poolTimeoutMs`
 * for a connection and at most `poolQueueMax` callers wait, so an exhausted pool answers 503 at
 * once instead of queueing without bound. SQL compiled once runs as a named prepared
 * statement, under the name its statement was compiled with.
 */
export class PostgresPool {
  readonly pg: pg.Pool
  private readonly queueMax: number
  // SQL texts of statements compiled once, and their names: for the statements Kysely runs.
  private readonly names = new Map<string, string>()

  constructor(
    options: PostgresOptions,
    private readonly state: OpenState = new OpenState()
  ) {
    this.pg = new pg.Pool({
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
    this.pg.on('error', () => {})
    this.queueMax = options.poolQueueMax ?? 1000
  }

  /** Runs `statement` as a named prepared statement wherever Kysely runs its SQL text too. */
  nameStatement(statement: CompiledStatement): void {
    if (!this.names.has(statement.sql)) this.names.set(statement.sql, statement.name)
  }

  /** Issue 10: refuses at once rather than queue behind DATABASE_POOL_QUEUE_MAX waiting callers. */
  private admit(): void {
    this.state.assertOpen()
    const pool = this.pg
    // A free or creatable connection means no wait; only a full pool with a full queue refuses.
    if (pool.idleCount > 0 || pool.totalCount < (pool.options.max ?? 10)) return
    if (pool.waitingCount >= this.queueMax) throw new PoolExhaustedError(pool.waitingCount)
  }

  /** One query on a connection of its own, released (or destroyed when spoiled) as soon as it answers. */
  private query<R>(query: pg.QueryConfig): Promise<R[]> {
    try {
      this.admit()
    } catch (error) {
      return Promise.reject(error)
    }
    return new Promise<R[]>((resolve, reject) => {
      this.pg.connect((connectError, client, release) => {
        if (connectError || client === undefined) {
          reject(unavailable(connectError))
          return
        }
        client.query(query, (error: Error | null, result: pg.QueryResult) => {
          release(error !== null && spoils(error) ? error : lostOf(client))
          if (error === null) resolve(result.rows as R[])
          else reject(fromDriver(error))
        })
      })
    })
  }

  /** Reads through named prepared statements on the pool. */
  reader(listeners: QueryListeners): Reader {
    return {
      rows: <R>(statement: CompiledStatement, values: readonly unknown[]): Promise<R[]> => {
        if (listeners.active) listeners.emit(statement.sql)
        return this.query<R>({ name: statement.name, text: statement.sql, values: values as unknown[] })
      }
    }
  }

  /** Resolves when the server answers a trivial query. */
  async ping(): Promise<void> {
    await this.query({ text: 'select 1' })
  }

  /** The pool as Kysely's PostgresDialect sees it: a connection per transaction or statement built per call. */
  forKysely(): KyselyPostgresPool {
    return {
      connect: async (): Promise<PostgresPoolClient> => {
        this.admit()
        let client: pg.PoolClient
        try {
          client = await this.pg.connect()
        } catch (error) {
          throw unavailable(error)
        }
        return new KyselyClient(client, this.names)
      },
      end: () => this.end()
    }
  }

  /** Closes the pool; every later use fails with DatabaseClosedError. */
  end(): Promise<void> {
    this.state.closed = true
    return this.pg.ended ? Promise.resolve() : this.pg.end()
  }
}
