/** One CSV file of `service-ordering export` (D-94): its name, header and rows, money in cents. */
export interface ExportTable {
  readonly file: string
  readonly columns: readonly string[]
  readonly rows: readonly (readonly (string | number | null)[])[]
}

/** D-94: times in ISO-8601 UTC; a missing time is an empty field. */
export function isoTime(ms: number | null): string | null {
  return ms === null ? null : new Date(Number(ms)).toISOString()
}
