import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely'
import type { Dialect } from './dialect.js'
import * as m0001 from './migrations/0001_platform.js'
import * as m0002 from './migrations/0002_customers.js'
import * as m0003 from './migrations/0003_catalogue.js'
import * as m0004 from './migrations/0004_orders.js'
import * as m0005 from './migrations/0005_outbox.js'
import * as m0006 from './migrations/0006_tracking.js'
import * as m0007 from './migrations/0007_items_visible_index.js'
import * as m0008 from './migrations/0008_customer_name_prefixes.js'
import * as m0009 from './migrations/0009_data_key.js'
import * as m0010 from './migrations/0010_folded_name_keys.js'
import * as m0011 from './migrations/0011_history_follows.js'
import * as m0012 from './migrations/0012_health_probe.js'
import * as m0013 from './migrations/0013_constraint_names.js'
import * as m0014 from './migrations/0014_staff.js'
import * as m0015 from './migrations/0015_step_timing.js'
import * as m0016 from './migrations/0016_customer_search_terms.js'
import * as m0017 from './migrations/0017_history_by.js'
import type { DB } from './schema.js'

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen history, typed against no schema (Kysely's convention)
type DialectMigration = { up(db: Kysely<any>, dialect: Dialect): Promise<void> }

// In order; a name once released never changes (the database records it).
const MIGRATIONS: Record<string, DialectMigration> = {
  '0001_platform': m0001,
  '0002_customers': m0002,
  '0003_catalogue': m0003,
  '0004_orders': m0004,
  '0005_outbox': m0005,
  '0006_tracking': m0006,
  '0007_items_visible_index': m0007,
  '0008_customer_name_prefixes': m0008,
  '0009_data_key': m0009,
  '0010_folded_name_keys': m0010,
  '0011_history_follows': m0011,
  '0012_health_probe': m0012,
  '0013_constraint_names': m0013,
  '0014_staff': m0014,
  '0015_step_timing': m0015,
  '0016_customer_search_terms': m0016,
  '0017_history_by': m0017
}

/** The names of this code base's migrations, in order. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(MIGRATIONS)

/** The migrations of this code base for one dialect, for Kysely's Migrator (tests migrate part-way with it). */
export function migrationProvider(dialect: Dialect): MigrationProvider {
  return {
    async getMigrations(): Promise<Record<string, Migration>> {
      return Object.fromEntries(
        // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration interface takes Kysely<any>
        Object.entries(MIGRATIONS).map(([name, migration]) => [name, { up: (db: Kysely<any>) => migration.up(db, dialect) }])
      )
    }
  }
}

/**
 * Brings the schema up to date (D-04). Safe from several processes at once: Kysely holds an
 * advisory lock on PostgreSQL; on SQLite the whole run holds the database's write lock (below).
 * Returns the names of the migrations this call applied.
 */
export async function migrateToLatest(db: Kysely<DB>, dialect: Dialect): Promise<string[]> {
  const migrator = new Migrator({ db, provider: migrationProvider(dialect) })
  const run = () => migrator.migrateToLatest()
  const { error, results } = dialect.name === 'sqlite' ? await underSqliteWriteLock(db, run) : await run()
  if (error !== undefined) throw error instanceof Error ? error : new Error(String(error))
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}

/**
 * D-04 on SQLite: Kysely runs SQLite migrations outside any transaction and takes no lock (its
 * adapter assumes a single connection), so two processes migrating one fresh file at once both ran
 * 0001 and one failed with "table already exists", possibly half-way through a migration. Kysely's
 * SQLite driver has exactly one connection, so a `begin immediate` issued on it first makes the
 * whole run one transaction holding the write lock: the others wait (busy_timeout), then find
 * nothing left to do. SQLite DDL is transactional, so a failed run leaves nothing half-applied.
 */
async function underSqliteWriteLock<T extends { error?: unknown }>(db: Kysely<DB>, run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      await sql`begin immediate`.execute(db)
      break
    } catch (error) {
      // Each attempt already waited busy_timeout (5 s) for the lock; a slow peer gets a few of them.
      if (attempt >= 6 || !/^SQLITE_BUSY/.test(String((error as { code?: unknown }).code))) throw error
    }
  }
  let outcome: T
  try {
    outcome = await run()
  } catch (error) {
    await sql`rollback`.execute(db).catch(() => {})
    throw error
  }
  if (outcome.error !== undefined) await sql`rollback`.execute(db).catch(() => {})
  else await sql`commit`.execute(db)
  return outcome
}
