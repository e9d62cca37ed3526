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
