import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler
} from 'kysely'
import { type Dialect, postgresDialect, sqliteDialect } from './dialect.js'
import type { DB } from './schema.js'
import { type Reader, type StatementCompiler, StatementRegistry } from './statement.js'

/** A statement compiler with no database behind it: `npm run sql` compiles each dialect's SQL with it. */
export interface CompileOnly extends StatementCompiler {
  /** Every statement compiled so far, by name, in the order compiled. */
  statements(): Array<[string, string]>
}

const nothingToRun: Reader = {
  rows: () => Promise.reject(new Error('a compile-only statement compiler runs nothing'))
}

/** Compiles statements as `openDatabase` would for this dialect, without connecting to anything. */
export function compileOnly(name: Dialect['name']): CompileOnly {
  const postgres = name === 'postgres'
  const db = new Kysely<DB>({
    dialect: {
      createAdapter: () => (postgres ? new PostgresAdapter() : new SqliteAdapter()),
      createDriver: () => new DummyDriver(),
      createIntrospector: (kysely) => (postgres ? new PostgresIntrospector(kysely) : new SqliteIntrospector(kysely)),
      createQueryCompiler: () => (postgres ? new PostgresQueryCompiler() : new SqliteQueryCompiler())
    }
  })
  const registry = new StatementRegistry(db, nothingToRun)
  return {
    db,
    dialect: postgres ? postgresDialect : sqliteDialect,
    prepare: (statementName, build) => registry.prepare(statementName, build),
    statements: () => [...registry.entries()]
  }
}
