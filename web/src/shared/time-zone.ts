// One time zone for the whole console: the shop's (`time_zone` of GET /console/config, the server's
// TIME_ZONE of D-51), never the browser's. Intl only; wall times are turned into instants by asking
// Intl for the zone's offset, so days when clocks change (DST) come out right.

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatter(zone: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${zone}|${JSON.stringify(options)}`
  let found = formatters.get(key)
  if (found === undefined) {
    found = new Intl.DateTimeFormat('en-US', { ...options, timeZone: zone })
    formatters.set(key, found)
  }
  return found
}

const WALL: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23'
}

/** The wall clock of an instant (milliseconds) in a zone, as if it were UTC milliseconds. */
function wallClock(zone: string, ms: number): number {
  const parts: Record<string, number> = {}
  for (const part of formatter(zone, WALL).formatToParts(new Date(ms))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value)
  }
  const hour = parts.hour === 24 ? 0 : (parts.hour ?? 0)
  return Date.UTC(parts.year ?? 1970, (parts.month ?? 1) - 1, parts.day ?? 1, hour, parts.minute ?? 0, parts.second ?? 0)
}

/** How far the zone's wall clock is ahead of UTC at an instant, in milliseconds. */
function offsetAt(zone: string, ms: number): number {
  const whole = Math.floor(ms / 1000) * 1000
  return wallClock(zone, whole) - whole
}

const pad = (n: number) => String(n).padStart(2, '0')
const DAY = 86_400_000

/** Whether Intl knows a zone name (`America/New_York`). */
function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone })
    return true
  } catch {
    return false
  }
}

/** Times in one zone: shown for people, read from and written to `datetime-local` inputs. */
export interface ShopTime {
  /** The IANA zone, e.g. `America/New_York`. */
  readonly zone: string
  /** The sentence to show beside times: `Times are in America/New_York (shop time)`. */
  readonly label: string
  /** Epoch seconds as `Nov 27, 2026, 9:00 AM` in the zone. */
  format(epochSeconds: number): string
  /** An ISO-8601 instant (history `at`, staff `created_at`) as `format` does; the text itself if it is not one. */
  formatIso(iso: string): string
  /** Only the date: `Nov 27, 2026`. */
  formatDate(epochSeconds: number): string
  /**
   * A `datetime-local` value (`2026-11-27T09:00`, seconds optional) read as shop wall time → epoch
   * seconds; undefined when it is not such a value. A time skipped when clocks go forward counts as
   * the same moment written in the old offset (02:30 → 03:30); a time that happens twice when clocks
   * go back is the first of the two.
   */
  toEpoch(value: string): number | undefined
  /** Epoch seconds → the `datetime-local` value of that moment in the zone (`2026-11-27T09:00`). */
  toInputValue(epochSeconds: number): string
  /** `toInputValue` of a wall time `days` days from today (in the zone) at `hour`:00. */
  inputValueInDays(days: number, hour: number, now?: number): string
}

const SHOWN: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short' }
const DATE_ONLY: Intl.DateTimeFormatOptions = { dateStyle: 'medium' }

/** Times in `zone` (an IANA name Intl knows; anything else falls back to UTC). */
export function timesIn(zone: string): ShopTime {
  const tz = isTimeZone(zone) ? zone : 'UTC'
  const toInputValue = (epochSeconds: number): string => {
    const wall = new Date(wallClock(tz, epochSeconds * 1000))
    return `${wall.getUTCFullYear()}-${pad(wall.getUTCMonth() + 1)}-${pad(wall.getUTCDate())}T${pad(wall.getUTCHours())}:${pad(wall.getUTCMinutes())}`
  }
  const toEpoch = (value: string): number | undefined => {
    const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value.trim())
    if (match === null) return undefined
    const [year, month, day, hour, minute, second] = match.slice(1).map((part) => Number(part ?? 0)) as number[]
    const wanted = Date.UTC(year!, month! - 1, day!, hour!, minute!, second!)
    const check = new Date(wanted)
    if (check.getUTCMonth() !== month! - 1 || check.getUTCDate() !== day! || hour! > 23 || minute! > 59 || second! > 59) return undefined
    // The offsets a day either side: a zone changes its offset at most once in that span.
    const before = offsetAt(tz, wanted - DAY)
    const after = offsetAt(tz, wanted + DAY)
    const fits = [before, after].map((offset) => wanted - offset).filter((ms) => wallClock(tz, ms) === wanted)
    const ms = fits.length > 0 ? Math.min(...fits) : wanted - before
    return Math.floor(ms / 1000)
  }
  return {
    zone: tz,
    label: `Times are in ${tz} (shop time)`,
    format: (epochSeconds) => formatter(tz, SHOWN).format(new Date(epochSeconds * 1000)),
    formatIso: (iso) => {
      const ms = Date.parse(iso)
      return Number.isNaN(ms) ? iso : formatter(tz, SHOWN).format(new Date(ms))
    },
    formatDate: (epochSeconds) => formatter(tz, DATE_ONLY).format(new Date(epochSeconds * 1000)),
    toEpoch,
    toInputValue,
    inputValueInDays: (days, hour, now = Date.now()) => {
      const today = toInputValue(Math.floor(now / 1000)).slice(0, 10)
      const [y, m, d] = today.split('-').map(Number) as [number, number, number]
      const target = new Date(Date.UTC(y, m - 1, d + days))
      return `${target.getUTCFullYear()}-${pad(target.getUTCMonth() + 1)}-${pad(target.getUTCDate())}T${pad(hour)}:00`
    }
  }
}

let current: ShopTime = timesIn(Intl.DateTimeFormat().resolvedOptions().timeZone)

/**
 * The shop's times for the console. The shell sets the zone from GET /console/config before any
 * signed-in page is drawn (`setShopTimeZone`), so views may read it at any time:
 * `shopTime.format(s)`, `shopTime.toEpoch('2026-11-27T09:00')`, `shopTime.toInputValue(s)`, `shopTime.zone`.
 */
export const shopTime: ShopTime = {
  get zone() {
    return current.zone
  },
  get label() {
    return current.label
  },
  format: (s) => current.format(s),
  formatIso: (iso) => current.formatIso(iso),
  formatDate: (s) => current.formatDate(s),
  toEpoch: (value) => current.toEpoch(value),
  toInputValue: (s) => current.toInputValue(s),
  inputValueInDays: (days, hour, now) => current.inputValueInDays(days, hour, now)
}

/** Sets the shop's zone (from GET /console/config). */
export function setShopTimeZone(zone: string): void {
  current = timesIn(zone)
}
