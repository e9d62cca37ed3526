/**
 * A whole number sent as a JSON number or as digit text (the spec allows both for timestamps,
 * phone, price, positions). Undefined for anything else, including text beyond 2^53.
 */
export function wholeNumber(value: number | string): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined
  // Up to 20 digits, as the schemas allow: leading zeros may make a small number long.
  if (!/^[0-9]{1,20}$/.test(value)) return undefined
  const parsed = Number(value)
  return Number.isSafeInteger(parsed) ? parsed : undefined
}

/** Integer cents as major units with two decimals: 1999 → "19.99" (D-54). */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : ''
  const abs = Math.abs(cents)
  const units = Math.floor(abs / 100)
  const rest = abs % 100
  return `${sign}${units}.${rest < 10 ? '0' : ''}${rest}`
}
