/**
 * How a read is kept between calls, chosen where a module is put together (its index.ts): the
 * services name what they read and hold rules only. `VersionedMemo` (db/) is one: it keeps an
 * answer until the data changes. Kept answers are shared between callers and must not be mutated.
 */
export interface ReadMemo<V> {
  get(key: string, read: () => Promise<V>): Promise<V>
}

/** Keeps nothing: every call reads. */
export function readEveryTime<V>(): ReadMemo<V> {
  return { get: (_key, read) => read() }
}
