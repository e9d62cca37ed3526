/**
 * JSON text with object keys in sorted order at every depth, so two bodies that differ only in
 * key order (or whitespace) give the same text. Arrays keep their order: it is meaningful.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner
    const sorted: Record<string, unknown> = {}
    for (const key of Object.keys(inner).sort()) sorted[key] = (inner as Record<string, unknown>)[key]
    return sorted
  })
}
