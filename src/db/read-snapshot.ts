import { Kysely, SqliteDialect, sql } from 'kysely'
import type { Database, DatabaseSettings } from './database.js'
import type { DB } from './schema.js'
import { openSqliteReader } from './sqlite.js'

/**
 * Runs `read` in one consistent snapshot without holding the writer (D-94). SQLite: a separate
 * read-only connection in a deferred transaction (WAL fixes the snapshot at its first read).
 * PostgreSQL: a `repeatable read, read only` transaction. An in-memory SQLite database has no file
 * a second connection could open, so its reads run in a transaction on the writer.
 */
export async function withReadSnapshot<T>(
  database: Database,
  settings: Pick<DatabaseSettings, 'database'>,
  read: (db: Kysely<DB>) => Promise<T>
): Promise<T> {
  if (settings.database.kind === 'postgres') {
    return database.db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(read)
  }
  if (settings.database.file === ':memory:') return database.db.transaction().execute(read)
  const reader = new Kysely<DB>({ dialect: new SqliteDialect({ database: openSqliteReader(settings.database.file) }) })
  try {
    // One connection: every statement of `read` runs inside this transaction.
    return await reader.connection().execute(async (connection) => {
      await sql`begin`.execute(connection)
      try {
        return await read(connection)
      } finally {
        await sql`commit`.execute(connection)
      }
    })
  } finally {
    await reader.destroy()
  }
}
