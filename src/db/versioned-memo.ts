/**
 * Answers computed from the database, kept until the database changes. `version` is a number that
 * changes whenever any connection commits (SQLite's data_version on the reader connection: this
 * process's writes, the CLI's, another process's), so a kept answer is returned only while the data
 * it was read from is still the data. Where there is no such cheap signal (`version` null:
 * PostgreSQL, an in-memory SQLite database) every call computes.
 *
 * For whole-catalogue reads that many clients poll and few writes change between polls (service
 * statistics, a service's items): under a steady stream of order writes they cost what they did.
 * Values are shared between callers and must not be mutated.
 */
export class VersionedMemo<V> {
  private readonly entries = new Map<string, { version: number; value: V }>()

  constructor(
    private readonly version: (() => number) | null,
    private readonly maxEntries = 1000
  ) {}

  /**
   * The kept answer for `key` while the data it was read from is still the data, without computing
   * anything: `{ value }` (the value may be undefined: an unknown id is kept too), or undefined when
   * nothing current is kept (or there is no version to tell: PostgreSQL).
   */
  peek(key: string): { value: V } | undefined {
    if (this.version === null) return undefined
    const kept = this.entries.get(key)
    return kept !== undefined && kept.version === this.version() ? kept : undefined
  }

  async get(key: string, compute: () => Promise<V>): Promise<V> {
    if (this.version === null) return compute()
    // Read before computing: a commit that lands during the computation makes the kept answer
    // stale at once, never a stale answer look current.
    const version = this.version()
    const kept = this.entries.get(key)
    if (kept !== undefined && kept.version === version) return kept.value
    const value = await compute()
    if (this.entries.size >= this.maxEntries && !this.entries.has(key)) {
      const oldest = this.entries.keys().next().value
      if (oldest !== undefined) this.entries.delete(oldest)
    }
    this.entries.set(key, { version, value })
    return value
  }
}
