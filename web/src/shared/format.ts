/** `12.50` (major units, two decimals) as `$12.50`. */
export function money(amount: string): string {
  return `$${amount}`
}

/** Whole cents as digit text (`250`) as `$2.50`. */
export function cents(price: string | number): string {
  const value = Number(price)
  return Number.isFinite(value) ? `$${(value / 100).toFixed(2)}` : String(price)
}

/** `2.50`, `2.5`, `2` or `$2.50` as whole cents; undefined when it is not an amount. */
export function parseDollars(text: string): number | undefined {
  const match = /^\s*\$?\s*(\d{1,6})(?:\.(\d{1,2}))?\s*$/.exec(text)
  if (match === null) return undefined
  return Number(match[1]) * 100 + Number((match[2] ?? '0').padEnd(2, '0'))
}

/** An ISO-8601 time in the reader's own zone, e.g. `Nov 2, 2026, 9:05 AM`. */
export function when(iso: string): string {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' })
}
