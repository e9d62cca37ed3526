import { CompiledQuery, Kysely, type LogEvent, PostgresDialect, SqliteDialect } from 'kysely'
import type { Config } from '../config.js'
import { type Dialect, postgresDialect, sqliteDialect } from './dialect.js'
import { OpenState } from './errors.js'
import { PostgresPool } from './postgres.js'
import { QueryListeners } from './query-listeners.js'
import type { DB } from './schema.js'
import {
  kyselySqliteDatabase,
  openSqliteConnection,
  openSqliteReader,
  SqliteDirect,
  SqliteReadSnapshot,
  StatementCache,
  sqliteReader
} from './sqlite.js'
import { SqliteCheckpointer } from './sqlite-checkpointer.js'
import { type Reader, type StatementCompiler, StatementRegistry } from './statement.js'
import { postgresUnitOfWork, SqliteGroupCommit, type UnitOfWork } from './unit-of-work.js'
import { WriteOutcomes } from './write-outcomes.js'

/**
 * An open database: Kysely on the writer, statements compiled once (`prepare`, read outside
 * transactions through the reader), and the unit of work for use cases.
 */
export interface Database extends StatementCompiler {
  /** Kysely on the writer connection (SQLite) or the pool (PostgreSQL). */
  readonly db: Kysely<DB>
  readonly dialect: Dialect
  /** One database transaction per use case; group commit on SQLite. */
  readonly unitOfWork: UnitOfWork
  /** When the unit of work last committed, and last found the database refusing writes (/readyz). */
  readonly writes: WriteOutcomes
  /** Listeners told of every SQL text executed; tests count queries with them. */
  readonly queries: QueryListeners
  /**
   * A number that changes whenever any connection commits a change (versioned-memo.ts); null where
   * there is no cheap way to tell (PostgreSQL, an in-memory SQLite database).
   */
  readonly dataVersion: (() => number) | null
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>
  /** Closes every connection; later statements and use cases fail with DatabaseClosedError (503). */
  close(): Promise<void>
}

export type DatabaseSettings = Pick<Config, 'database' | 'sqliteSynchronous' | 'databasePoolMax' | 'statementTimeoutMs'> &
  // Issue 10: optional, so callers that build settings by hand (bench, tools) keep the defaults.
  Partial<Pick<Config, 'databasePoolTimeoutMs' | 'databasePoolQueueMax'>>

function logTo(queries: QueryListeners) {
  return (event: LogEvent) => {
    if (queries.active) queries.emit(event.query.sql)
  }
}

function openSqlite(settings: DatabaseSettings, file: string): Database {
  const state = new OpenState()
  const queries = new QueryListeners()
  const writer = openSqliteConnection(file, settings.sqliteSynchronous)
  // An in-memory database has no WAL; a file's is checkpointed by a worker thread.
  const checkpointer = file === ':memory:' ? null : new SqliteCheckpointer(writer, settings.sqliteSynchronous)
  // An in-memory database has no file a second connection could open; its reads share the writer.
  const snapshot = file === ':memory:' ? null : new SqliteReadSnapshot(openSqliteReader(file))
  // A write ends the reader's snapshot, so a read after it (in this turn too) sees it.
  const endSnapshot = snapshot === null ? undefined : () => snapshot.release()
  const cache = new StatementCache(writer)
  const db = new Kysely<DB>({
    dialect: new SqliteDialect({ database: kyselySqliteDatabase(writer, cache, state, endSnapshot) }),
    log: logTo(queries)
  })
  const writes = new WriteOutcomes(sqliteDialect)
  const reader: Reader =
    snapshot === null
      ? {
          rows: async <R>(statement: { sql: string }, values: readonly unknown[]) =>
            (await db.executeQuery<R>(CompiledQuery.raw(statement.sql, [...values]))).rows as R[]
        }
      : sqliteReader(new StatementCache(snapshot.connection), queries, snapshot, state)
  const statements = new StatementRegistry(db, reader)
  return {
    db,
    dialect: sqliteDialect,
    prepare: (name, build) => statements.prepare(name, build),
    unitOfWork: new SqliteGroupCommit(db, new SqliteDirect(cache, queries, state, endSnapshot), checkpointer ?? undefined, writes),
    writes,
    queries,
    dataVersion:
      snapshot === null
        ? null
        : () => {
            state.assertOpen()
            return snapshot.dataVersion()
          },
    ping: async () => {
      await reader.rows({ name: 'ping', sql: 'select 1' }, [])
    },
    close: async () => {
      if (state.closed) return
      state.closed = true
      await checkpointer?.close()
      snapshot?.release()
      snapshot?.connection.close()
      writer.close()
    }
  }
}

function openPostgres(settings: DatabaseSettings, url: string): Database {
  const state = new OpenState()
  const queries = new QueryListeners()
  const pool = new PostgresPool(
    {
      url,
      poolMax: settings.databasePoolMax,
      statementTimeoutMs: settings.statementTimeoutMs,
      ...(settings.databasePoolTimeoutMs === undefined ? {} : { poolTimeoutMs: settings.databasePoolTimeoutMs }),
      ...(settings.databasePoolQueueMax === undefined ? {} : { poolQueueMax: settings.databasePoolQueueMax })
    },
    state
  )
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: pool.forKysely() }), log: logTo(queries) })
  const writes = new WriteOutcomes(postgresDialect)
  const statements = new StatementRegistry(db, pool.reader(queries), (statement) => pool.nameStatement(statement))
  return {
    db,
    dialect: postgresDialect,
    prepare: (name, build) => statements.prepare(name, build),
    unitOfWork: postgresUnitOfWork(db, postgresDialect, writes),
    writes,
    queries,
    dataVersion: null,
    ping: () => pool.ping(),
    // Kysely is not destroyed: its later queries reach the pool, which refuses them as closed.
    close: () => pool.end()
  }
}

/** Opens the database DATABASE_URL names (D-02). Migrations are run separately (migrator.ts). */
export function openDatabase(settings: DatabaseSettings): Database {
  return settings.database.kind === 'sqlite' ? openSqlite(settings, settings.database.file) : openPostgres(settings, settings.database.url)
}
