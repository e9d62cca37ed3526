import path from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import type { SqliteDatabase, Transaction } from 'kysely'
import { ensureDirectory } from '../common/directories.js'
import type { OpenState } from './errors.js'
import type { QueryListeners } from './query-listeners.js'
import type { DB } from './schema.js'
import type { CompiledStatement, Reader, Tx } from './statement.js'

type Statement = BetterSqlite3.Statement<unknown[], unknown>

/**
 * Prepared statements kept per SQL text: better-sqlite3's prepare() costs more than running a
 * small indexed query, so each distinct text is prepared once per connection.
 */
export class StatementCache {
  private readonly statements = new Map<string, Statement>()
  constructor(
    private readonly connection: BetterSqlite3.Database,
    private readonly limit = 2000
  ) {}

  get(sqlText: string): Statement {
    let statement = this.statements.get(sqlText)
    if (statement === undefined) {
      statement = this.connection.prepare(sqlText)
      if (this.statements.size >= this.limit) {
        const oldest = this.statements.keys().next().value
        if (oldest !== undefined) this.statements.delete(oldest)
      }
      this.statements.set(sqlText, statement)
    }
    return statement
  }
}

/** Opens (creating if needed) the SQLite file with the pragmas the service relies on. */
export function openSqliteConnection(file: string, synchronous: 'FULL' | 'NORMAL'): BetterSqlite3.Database {
  if (file !== ':memory:') ensureDirectory(path.dirname(file))
  const connection = new BetterSqlite3(file)
  connection.pragma('busy_timeout = 5000')
  connection.pragma('journal_mode = WAL')
  // FULL by default: an acknowledged write survives power loss, not only a process crash.
  connection.pragma(`synchronous = ${synchronous}`)
  connection.pragma('foreign_keys = ON')
  // Every request in a group commit runs in its own savepoint (unit-of-work.ts), and SQLite keeps
  // each page a savepoint changes in a statement journal. In a temp file (the default) that journal
  // is never truncated while the batch's transaction lasts and costs two writes per page; in memory it
  // is emptied at each release.
  connection.pragma('temp_store = MEMORY')
  // 8 MiB of page cache instead of better-sqlite3's 16: writes touch random index leaves, so a larger
  // cache only grows RSS while the file's pages stay in the OS cache anyway. The reader keeps 16 MiB.
  connection.pragma('cache_size = -8000')
  return connection
}

/** A second, read-only connection to the same file for reads outside transactions. */
export function openSqliteReader(file: string): BetterSqlite3.Database {
  const reader = new BetterSqlite3(file, { readonly: true, fileMustExist: true })
  reader.pragma('busy_timeout = 5000')
  return reader
}

/**
 * The writer connection as Kysely's SqliteDialect sees it, with cached statements.
 * Kysely opens transactions with a plain `begin`; it is made `begin immediate` so a second process
 * (the CLI, another server) waits for the write lock at the start instead of failing mid-way.
 */
export function kyselySqliteDatabase(
  connection: BetterSqlite3.Database,
  cache: StatementCache,
  state: OpenState,
  beforeStatement?: () => void
): SqliteDatabase {
  return {
    prepare: (sqlText: string) => {
      state.assertOpen()
      // Kysely runs each statement right after preparing it.
      beforeStatement?.()
      return cache.get(sqlText === 'begin' ? 'begin immediate' : sqlText)
    },
    close: () => connection.close()
  }
}

type RowMapper = (values: unknown[]) => unknown

/**
 * A function turning one raw row (an array) into an object with the statement's column names: one
 * object literal per row, compiled once per statement, instead of better-sqlite3 building each row
 * key by key. Column names come from our own SQL.
 */
function rowMapper(columns: readonly { name: string }[]): RowMapper {
  const fields = columns.map((column, index) => `${JSON.stringify(column.name)}: values[${index}]`).join(', ')
  return new Function('values', `return { ${fields} }`) as RowMapper
}

/**
 * One read snapshot per turn of the event loop on the read-only connection, instead of a read
 * transaction (a WAL lock and three system calls) around every statement: the first read of a turn
 * begins it and the turn's check phase ends it (setImmediate).
 *
 * It is never stale for a client: its pending release keeps the event loop from waiting for I/O,
 * so no snapshot spans a wait, and a request read after a wait reads a snapshot taken after it.
 * This process's own writes are seen at once: every statement on the writer ends the snapshot
 * first (`kyselySqliteDatabase`). A snapshot held for one turn delays no writer (WAL).
 */
export class SqliteReadSnapshot {
  private open = false
  private readonly begin: Statement
  private readonly end: Statement
  private readonly version: Statement
  private readonly endLater = () => this.release()

  constructor(readonly connection: BetterSqlite3.Database) {
    this.begin = connection.prepare('begin')
    this.end = connection.prepare('commit')
    this.version = connection.prepare('pragma data_version').pluck()
  }

  /**
   * SQLite's data_version of the data this turn's reads see: it changes when any other connection
   * (this process's writer included) commits (versioned-memo.ts).
   */
  dataVersion(): number {
    this.enter()
    return this.version.get() as number
  }

  /** Makes sure the statements run next read this turn's snapshot. */
  enter(): void {
    if (this.open || !this.connection.open) return
    this.begin.run()
    this.open = true
    setImmediate(this.endLater)
  }

  /** Ends the turn's snapshot (also before the connection is closed). */
  release(): void {
    if (!this.open) return
    this.open = false
    try {
      if (this.connection.inTransaction) this.end.run()
    } catch {
      // The connection was closed under it: there is no snapshot left to end.
    }
  }
}

/** Reads through cached statements of a read-only connection, in raw mode with compiled row mappers. */
export function sqliteReader(cache: StatementCache, listeners: QueryListeners, snapshot: SqliteReadSnapshot, state: OpenState): Reader {
  const mappers = new WeakMap<Statement, RowMapper>()
  return {
    rows<R>(compiled: CompiledStatement, parameters: readonly unknown[]): Promise<R[]> {
      if (listeners.active) listeners.emit(compiled.sql)
      try {
        state.assertOpen()
        snapshot.enter()
        const statement = cache.get(compiled.sql)
        let mapper = mappers.get(statement)
        if (mapper === undefined) {
          mapper = rowMapper(statement.columns())
          statement.raw(true)
          mappers.set(statement, mapper)
        }
        const raw = statement.all(...parameters) as unknown[][]
        const rows = new Array<R>(raw.length)
        for (let i = 0; i < raw.length; i++) rows[i] = mapper(raw[i]!) as R
        return Promise.resolve(rows)
      } catch (error) {
        return Promise.reject(error)
      }
    }
  }
}

/**
 * Statements run straight on the writer connection, inside a transaction the group commit holds
 * (unit-of-work.ts). Kysely's path costs more than a small SQLite statement itself: a connection
 * provider, a mutex, a log event and three or four promises per statement. Statements compiled
 * once (statement.ts) and the group commit's savepoints skip it; anything else in the same
 * transaction still goes through Kysely, on the same connection, so both see one transaction.
 */
export class SqliteDirect {
  constructor(
    private readonly cache: StatementCache,
    private readonly listeners: QueryListeners,
    private readonly state: OpenState,
    private readonly beforeStatement?: () => void
  ) {}

  /** Rows of a statement that returns rows (a SELECT, or a write with RETURNING), else none. */
  rows<R>(sqlText: string, parameters: readonly unknown[]): R[] {
    const statement = this.statement(sqlText)
    if (statement.reader) return statement.all(parameters) as R[]
    statement.run(parameters)
    return []
  }

  /** Runs a write and returns how many rows it changed. */
  run(sqlText: string, parameters: readonly unknown[]): number {
    const statement = this.statement(sqlText)
    if (statement.reader) return statement.all(parameters).length
    return statement.run(parameters).changes
  }

  private statement(sqlText: string): Statement {
    if (this.listeners.active) this.listeners.emit(sqlText)
    this.state.assertOpen()
    this.beforeStatement?.()
    return this.cache.get(sqlText)
  }
}

/** A use case's transaction on the writer: statements compiled once run on the direct path. */
export class SqliteTx implements Tx {
  constructor(
    readonly db: Transaction<DB>,
    private readonly direct: SqliteDirect
  ) {}

  rows<R>(statement: CompiledStatement, values: readonly unknown[]): Promise<R[]> {
    try {
      return Promise.resolve(this.direct.rows<R>(statement.sql, values))
    } catch (error) {
      return Promise.reject(error)
    }
  }

  run(statement: CompiledStatement, values: readonly unknown[]): Promise<number> {
    try {
      return Promise.resolve(this.direct.run(statement.sql, values))
    } catch (error) {
      return Promise.reject(error)
    }
  }
}
