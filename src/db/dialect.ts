import { type ColumnDefinitionBuilder, type CreateTableBuilder, type Expression, type Kysely, type RawBuilder, sql } from 'kysely'
import type { DB } from './schema.js'

/**
 * The few things that differ between SQLite and PostgreSQL, chosen once from DATABASE_URL.
 * Modules ask this object; they never look at the URL.
 */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres'
  /** Row locks (`FOR UPDATE`, `FOR SHARE`): PostgreSQL only; SQLite serialises every writer anyway. */
  readonly supportsRowLocks: boolean
  /** `FOR UPDATE SKIP LOCKED` for dispatchers claiming outbox rows (D-61). */
  readonly supportsSkipLocked: boolean
  /**
   * INSERT, UPDATE and DELETE inside WITH (PostgreSQL): several writes of a use case in one
   * statement, so one round trip to the server instead of one each (issue 7).
   */
  readonly supportsWritesInWith: boolean
  /** Column type for millisecond timestamps and other 64-bit integers. */
  readonly bigint: 'bigint' | 'integer'
  /** Adds an auto-incrementing integer primary key column named `id`. */
  addIdColumn<T extends string>(table: CreateTableBuilder<T, never>): CreateTableBuilder<T, 'id'>
  /** Makes a text column compare byte by byte, so prefix ranges work with its index (D-33). */
  binaryText(column: ColumnDefinitionBuilder): ColumnDefinitionBuilder
  /** Serialises a rare, racy start-up step across processes until the transaction ends. */
  lockForTransaction(trx: Kysely<DB>, key: number): Promise<void>
  /**
   * An aggregate over the rows in scope: one JSON text holding an array of `[values…]` per row,
   * ordered by `orderBy`, `[]` when there is none. One text instead of a row per child keeps a
   * parent's columns from being sent and decoded again for every child (the full view, issue 7).
   */
  jsonArrayRows(values: readonly Expression<unknown>[], orderBy: Expression<unknown>): RawBuilder<string>
  /** True when the error is a unique-constraint violation. */
  isUniqueViolation(error: unknown): boolean
  /** True when the error means the database cannot be reached or is overloaded (503, D-21). */
  isUnavailable(error: unknown): boolean
  /** True when the error is a deadlock or serialisation failure worth one more try. */
  isRetryable(error: unknown): boolean
}

function errorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code
    return typeof code === 'string' ? code : undefined
  }
  return undefined
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : ''
}

// A database closed under a running app (shutdown, a lost file, a stopped pool) is "cannot be
// reached" too: without these, requests arriving then answered 500 `internal` instead of 503 (D-21).
const CLOSED_MESSAGES = [
  'The database connection is not open', // better-sqlite3, after close()
  'driver has already been destroyed', // Kysely, after destroy()
  'Cannot use a pool after calling end on the pool' // pg-pool, after end()
]

function isClosed(error: unknown): boolean {
  const message = errorMessage(error)
  return CLOSED_MESSAGES.some((fragment) => message.includes(fragment))
}

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  supportsRowLocks: false,
  supportsSkipLocked: false,
  supportsWritesInWith: false,
  bigint: 'integer',
  addIdColumn: (table) => table.addColumn('id', 'integer', (col) => col.primaryKey().autoIncrement()),
  binaryText: (column) => column,
  // Every SQLite write transaction already holds the database's one write lock (begin immediate).
  lockForTransaction: async () => {},
  // ORDER BY inside an aggregate: SQLite 3.44 and later (better-sqlite3 bundles its own, newer).
  jsonArrayRows: (values, orderBy) => sql<string>`json_group_array(json_array(${sql.join(values)}) order by ${orderBy})`,
  isUniqueViolation: (error) => {
    const code = errorCode(error)
    return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  },
  isUnavailable: (error) => {
    const code = errorCode(error) ?? ''
    return /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY)/.test(code) || isClosed(error)
  },
  isRetryable: () => false
}

// Connection-level failures of node-postgres and PostgreSQL's own "not now" classes.
const PG_UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'EPIPE'])
const PG_UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection ended unexpectedly',
  'the database system is',
  'terminating connection',
  // 55000 at connect: the database is closed to connections (ALLOW_CONNECTIONS false, or being
  // dropped). The class is matched by message only: 55000 also names states that are our own bugs.
  'is not currently accepting connections',
  'pool is exhausted',
  'Client was closed',
  'Query read timeout' // the client-side bound of postgres.ts: no answer from the server in time (issue 8)
]

export const postgresDialect: Dialect = {
  name: 'postgres',
  supportsRowLocks: true,
  supportsSkipLocked: true,
  supportsWritesInWith: true,
  bigint: 'bigint',
  addIdColumn: (table) => table.addColumn('id', 'bigint', (col) => col.primaryKey().generatedByDefaultAsIdentity()),
  binaryText: (column) => column.modifyEnd(sql`collate "C"`),
  lockForTransaction: async (trx, key) => {
    await sql`select pg_advisory_xact_lock(${key})`.execute(trx)
  },
  // As text, like SQLite's: node-postgres would otherwise parse json itself, and callers parse once.
  jsonArrayRows: (values, orderBy) =>
    sql<string>`coalesce(json_agg(json_build_array(${sql.join(values)}) order by ${orderBy}), '[]')::text`,
  isUniqueViolation: (error) => errorCode(error) === '23505',
  isUnavailable: (error) => {
    const code = errorCode(error) ?? ''
    if (PG_UNAVAILABLE_CODES.has(code)) return true
    // 08: connection exception; 53: insufficient resources; 57P: operator intervention; 57014: statement timeout.
    // 3D000: the database does not exist; 28: the server refuses our credentials. Either way the
    // database cannot be reached (503), not a bug in the request (was 500).
    // 25006: the database takes no writes now (a hot standby, default_transaction_read_only): 503
    // like a full disk on SQLite (SQLITE_READONLY), and /readyz fails with it (issue 25).
    if (/^(08|53|57P|28)/.test(code) || code === '57014' || code === '3D000' || code === '25006') return true
    const message = errorMessage(error)
    return PG_UNAVAILABLE_MESSAGES.some((fragment) => message.includes(fragment)) || isClosed(error)
  },
  isRetryable: (error) => {
    const code = errorCode(error)
    return code === '40P01' || code === '40001'
  }
}
