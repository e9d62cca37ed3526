import { CompiledQuery, Kysely, type LogEvent, PostgresDialect, SqliteDialect, sql } from 'kysely'
import type { Config } from '../config.js'
import { type Dialect, postgresDialect, sqliteDialect } from './dialect.js'
import { kyselyPostgresPool, openPostgresPool, postgresRunner } from './postgres.js'
import { QueryListeners, type QueryRunner } from './query-runner.js'
import type { DB } from './schema.js'
import {
  kyselySqliteDatabase,
  openSqliteConnection,
  openSqliteReader,
  SqliteDirect,
  SqliteReadSnapshot,
  StatementCache,
  sqliteRunner
} from './sqlite.js'
import { SqliteCheckpointer } from './sqlite-checkpointer.js'
import { postgresUnitOfWork, SqliteGroupCommit, type UnitOfWork } from './unit-of-work.js'
import { WriteOutcomes } from './write-outcomes.js'

/** An open database: the writer, the reader for hot queries, and the unit of work for use cases. */
export interface Database {
  /** Kysely on the writer connection (SQLite) or the pool (PostgreSQL). */
  readonly db: Kysely<DB>
  readonly dialect: Dialect
  /** Reads outside transactions, through statements compiled once (prepared.ts). */
  readonly reader: QueryRunner
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
  const queries = new QueryListeners()
  const writer = openSqliteConnection(file, settings.sqliteSynchronous)
  // An in-memory database has no WAL; a file's is checkpointed by a worker thread.
  const checkpointer = file === ':memory:' ? null : new SqliteCheckpointer(writer, settings.sqliteSynchronous)
  // An in-memory database has no file a second connection could open; its reads share the writer.
  const snapshot = file === ':memory:' ? null : new SqliteReadSnapshot(openSqliteReader(file))
  // A write ends the reader's snapshot, so a read after it (in this turn too) sees it.
  const endSnapshot = snapshot === null ? undefined : () => snapshot.release()
  const statements = new StatementCache(writer)
  const db = new Kysely<DB>({
    dialect: new SqliteDialect({ database: kyselySqliteDatabase(writer, statements, endSnapshot) }),
    log: logTo(queries)
  })
  const writes = new WriteOutcomes(sqliteDialect)
  const reader: QueryRunner =
    snapshot === null
      ? {
          rows: async <R>(text: string, parameters: readonly unknown[]) =>
            (await db.executeQuery<R>(CompiledQuery.raw(text, [...parameters]))).rows as R[]
        }
      : sqliteRunner(new StatementCache(snapshot.connection), queries, snapshot)
  return {
    db,
    dialect: sqliteDialect,
    reader,
    unitOfWork: new SqliteGroupCommit(db, new SqliteDirect(statements, queries, endSnapshot), checkpointer ?? undefined, writes),
    writes,
    queries,
    dataVersion: snapshot === null ? null : () => snapshot.dataVersion(),
    ping: async () => {
      await sql`select 1`.execute(db)
    },
    close: async () => {
      await checkpointer?.close()
      snapshot?.release()
      snapshot?.connection.close()
      await db.destroy()
    }
  }
}

function openPostgres(settings: DatabaseSettings, url: string): Database {
  const queries = new QueryListeners()
  const pool = openPostgresPool({
    url,
    poolMax: settings.databasePoolMax,
    statementTimeoutMs: settings.statementTimeoutMs,
    ...(settings.databasePoolTimeoutMs === undefined ? {} : { poolTimeoutMs: settings.databasePoolTimeoutMs }),
    ...(settings.databasePoolQueueMax === undefined ? {} : { poolQueueMax: settings.databasePoolQueueMax })
  })
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: kyselyPostgresPool(pool) }), log: logTo(queries) })
  const writes = new WriteOutcomes(postgresDialect)
  return {
    db,
    dialect: postgresDialect,
    reader: postgresRunner(pool, queries),
    unitOfWork: postgresUnitOfWork(db, postgresDialect, writes),
    writes,
    queries,
    dataVersion: null,
    ping: async () => {
      await pool.query('select 1')
    },
    close: () => db.destroy()
  }
}

/** Opens the database DATABASE_URL names (D-02). Migrations are run separately (migrator.ts). */
export function openDatabase(settings: DatabaseSettings): Database {
  return settings.database.kind === 'sqlite' ? openSqlite(settings, settings.database.file) : openPostgres(settings, settings.database.url)
}
