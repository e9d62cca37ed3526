import {
  type ColumnDefinitionBuilder,
  type CreateTableBuilder,
  type Expression,
  type ExpressionBuilder,
  type JoinBuilder,
  type RawBuilder,
  type SelectQueryBuilder,
  sql
} from 'kysely'
import { isDatabaseFailure } from './errors.js'
import type { Tx } from './statement.js'

// biome-ignore-start lint/suspicious/noExplicitAny: a join helper over any query; callers name the shape they select from
type AnySelectQuery = SelectQueryBuilder<any, any, any>
type AnyJoin = JoinBuilder<any, any>
type AnyExpressionBuilder = ExpressionBuilder<any, any>
// biome-ignore-end lint/suspicious/noExplicitAny: the three above

/** A join that must be a lookup by key (`Dialect.joinByKey`): a few columns of `table`, matched on key columns. */
export interface KeyJoin {
  readonly table: 'services' | 'service_steps' | 'items'
  readonly as: string
  /** Each key column of the joined table and what it equals. */
  readonly on: Readonly<Record<string, Expression<unknown>>>
  /** The columns the query reads of it. */
  readonly columns: readonly string[]
  /** A left join (no match: nulls) instead of an inner one. */
  readonly left?: boolean
}

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
   * statement, so one round trip to the server instead of one each.
   */
  readonly supportsWritesInWith: boolean
  /**
   * Statements may run on a generic plan, made for no parameter value in particular (PostgreSQL's
   * plan cache, after a named prepared statement's first runs): a read whose best plan depends on
   * how many rows a value has (a common search prefix or a rare one) must not leave that to the
   * planner. SQLite plans by the indexes alone.
   */
  readonly genericPlans: boolean
  /** Column type for millisecond timestamps and other 64-bit integers. */
  readonly bigint: 'bigint' | 'integer'
  /** Adds an auto-incrementing integer primary key column named `id`. */
  addIdColumn<T extends string>(table: CreateTableBuilder<T, never>): CreateTableBuilder<T, 'id'>
  /** Makes a text column compare byte by byte, so prefix ranges work with its index (D-33). */
  binaryText(column: ColumnDefinitionBuilder): ColumnDefinitionBuilder
  /** Serialises a rare, racy start-up step across processes until the transaction ends. */
  lockForTransaction(tx: Tx, key: number): Promise<void>
  /**
   * An aggregate over the rows in scope: one JSON text holding an array of `[values…]` per row,
   * ordered by `orderBy`, `[]` when there is none. One text instead of a row per child keeps a
   * parent's columns from being sent and decoded again for every child (the full view).
   */
  jsonArrayRows(values: readonly Expression<unknown>[], orderBy: Expression<unknown>): RawBuilder<string>
  /**
   * Element `index` (from 0, a whole number) of `array`, JSON text of an array of strings, as text:
   * a list of any length in one parameter, read one element at a time.
   */
  jsonArrayText(array: Expression<unknown>, index: Expression<unknown>): RawBuilder<string>
  /**
   * `query` joined with a row looked up by key. SQLite's planner does that with a plain join; on
   * PostgreSQL it is a LATERAL subquery with `OFFSET 0`, which the planner cannot flatten: plain
   * joins against catalogue tables this small get hash joins that scan the whole table per read.
   */
  joinByKey(query: AnySelectQuery, join: KeyJoin): AnySelectQuery
  /**
   * True when the error is a unique-constraint violation; with `constraint`, of that constraint (its
   * name from a migration, never a default). SQLite's errors name no constraint: there the code alone answers.
   */
  isUniqueViolation(error: unknown, constraint?: string): boolean
  /**
   * True when the error means the database cannot be reached, is overloaded or was closed (503,
   * D-21): by SQLSTATE or SQLite result code, or our own code for the driver's failures (errors.ts).
   */
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

function tableAs(join: KeyJoin): string {
  return join.as === join.table ? join.table : `${join.table} as ${join.as}`
}

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  supportsRowLocks: false,
  supportsSkipLocked: false,
  supportsWritesInWith: false,
  genericPlans: false,
  bigint: 'integer',
  addIdColumn: (table) => table.addColumn('id', 'integer', (col) => col.primaryKey().autoIncrement()),
  binaryText: (column) => column,
  // Every SQLite write transaction already holds the database's one write lock (begin immediate).
  lockForTransaction: async () => {},
  // ORDER BY inside an aggregate: SQLite 3.44 and later (better-sqlite3 bundles its own, newer).
  jsonArrayRows: (values, orderBy) => sql<string>`json_group_array(json_array(${sql.join(values)}) order by ${orderBy})`,
  jsonArrayText: (array, index) => sql<string>`json_extract(${array}, '$[' || (${index}) || ']')`,
  joinByKey: (query, join) => {
    const on = (builder: AnyJoin) =>
      Object.entries(join.on).reduce((j, [column, value]) => j.on(`${join.as}.${column}`, '=', value), builder)
    return join.left === true ? query.leftJoin(tableAs(join), on) : query.innerJoin(tableAs(join), on)
  },
  isUniqueViolation: (error) => {
    const code = errorCode(error)
    return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  },
  isUnavailable: (error) => {
    const code = errorCode(error) ?? ''
    return /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY)/.test(code) || isDatabaseFailure(error)
  },
  isRetryable: () => false
}

export const postgresDialect: Dialect = {
  name: 'postgres',
  supportsRowLocks: true,
  supportsSkipLocked: true,
  supportsWritesInWith: true,
  genericPlans: true,
  bigint: 'bigint',
  addIdColumn: (table) => table.addColumn('id', 'bigint', (col) => col.primaryKey().generatedByDefaultAsIdentity()),
  binaryText: (column) => column.modifyEnd(sql`collate "C"`),
  lockForTransaction: async (tx, key) => {
    await sql`select pg_advisory_xact_lock(${key})`.execute(tx.db)
  },
  // As text, like SQLite's: node-postgres would otherwise parse json itself, and callers parse once.
  jsonArrayRows: (values, orderBy) =>
    sql<string>`coalesce(json_agg(json_build_array(${sql.join(values)}) order by ${orderBy}), '[]')::text`,
  jsonArrayText: (array, index) => sql<string>`(cast(${array} as json) ->> (${index}))`,
  joinByKey: (query, join) => {
    const lookUp = (eb: AnyExpressionBuilder) =>
      Object.entries(join.on)
        .reduce(
          (row, [column, value]) => row.where(`${join.as}.${column}`, '=', value),
          eb.selectFrom(tableAs(join)).select(join.columns.map((column) => `${join.as}.${column}`))
        )
        .offset(sql.lit(0))
        .as(join.as)
    return join.left === true ? query.leftJoinLateral(lookUp, (on) => on.onTrue()) : query.innerJoinLateral(lookUp, (on) => on.onTrue())
  },
  isUniqueViolation: (error, constraint) =>
    errorCode(error) === '23505' && (constraint === undefined || (error as { constraint?: unknown }).constraint === constraint),
  isUnavailable: (error) => {
    const code = errorCode(error) ?? ''
    // 08: connection exception; 53: insufficient resources; 57P: operator intervention; 57014: statement
    // timeout; 3D000: no such database; 28: credentials refused; 25006: no writes now (a hot standby,
    // default_transaction_read_only), like a full disk on SQLite. Failures of the driver itself
    // (a lost connection, a connect that failed or timed out) arrive wrapped by postgres.ts.
    return /^(08|53|57P|28)/.test(code) || code === '57014' || code === '3D000' || code === '25006' || isDatabaseFailure(error)
  },
  isRetryable: (error) => {
    const code = errorCode(error)
    return code === '40P01' || code === '40001'
  }
}
