/**
 * Runs SQL that was compiled once (see prepared.ts) outside any database transaction.
 * SQLite: a cached statement on a read-only WAL connection, so reads never wait for a writer's
 * transaction and never see its uncommitted rows. PostgreSQL: a named prepared statement on the pool.
 */
export interface QueryRunner {
  rows<R>(sql: string, parameters: readonly unknown[]): Promise<R[]>
}

/** Something told about each SQL text executed; tests count queries with it. */
export type QueryListener = (sql: string) => void

/** The set of query listeners of one database; empty in production. */
export class QueryListeners {
  private readonly listeners = new Set<QueryListener>()
  get active(): boolean {
    return this.listeners.size > 0
  }
  add(listener: QueryListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }
  emit(sql: string): void {
    for (const listener of this.listeners) listener(sql)
  }
}

// SQL texts that are executed as named prepared statements on PostgreSQL, and their names.
const statementNames = new Map<string, string>()

/** Marks an SQL text as prepared once per connection (PostgreSQL named statements). */
export function registerStatementName(sqlText: string): void {
  if (!statementNames.has(sqlText)) statementNames.set(sqlText, `so_${statementNames.size + 1}`)
}

/** The prepared-statement name of an SQL text, if it was registered. */
export function statementName(sqlText: string): string | undefined {
  return statementNames.get(sqlText)
}
