/** `1 order`, `2 orders`, `0 orders`: a count with its noun, never "1 orders". */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`
}

/** A length of time for people: `45 min`, `1 h`, `1 h 20 min`, `2 d 3 h`. */
export function duration(totalMinutes: number): string {
  const minutes = Math.max(1, Math.round(totalMinutes))
  if (minutes < 60) return `${minutes} min`
  const hours = Math.floor(minutes / 60)
  const rest = minutes % 60
  if (hours < 24) return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`
  const days = Math.floor(hours / 24)
  const restHours = hours % 24
  return restHours === 0 ? `${days} d` : `${days} d ${restHours} h`
}

/** Epoch seconds of an API instant: ISO-8601 text, or seconds as a number or digit text. */
export function epochSeconds(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined
  if (/^\d+$/.test(value)) return Number(value)
  const ms = Date.parse(value)
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000)
}
