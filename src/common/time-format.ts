const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const

/** Calendar parts of an instant in one zone. */
export interface Parts {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
}

function pad2(value: number): string {
  return value < 10 ? `0${value}` : String(value)
}

/**
 * Writes Unix timestamps (seconds) as the spec's date and time strings in one IANA zone (D-51):
 * `Nov 02, 2026 @ 09:05 AM`, `2026-11-02`, `09:05:00`, `09:05`. Every response uses the same
 * zone (TIME_ZONE), so create, update and read always agree.
 */
export class TimeFormatter {
  private readonly format: Intl.DateTimeFormat | null
  // UTC offset in seconds per minute of time: zone transitions fall on whole minutes, and Intl
  // costs microseconds per call, so each minute's offset is asked once (bounded, oldest dropped).
  private readonly offsets = new Map<number, number>()

  constructor(readonly timeZone: string) {
    // UTC needs no zone database: Date's UTC getters are exact and much cheaper.
    this.format =
      timeZone === 'UTC'
        ? null
        : new Intl.DateTimeFormat('en-US', {
            timeZone,
            hourCycle: 'h23',
            year: 'numeric',
            month: 'numeric',
            day: 'numeric',
            hour: 'numeric',
            minute: 'numeric',
            second: 'numeric'
          })
  }

  /** Seconds to add to a UTC timestamp to read the zone's wall clock with UTC getters. */
  private offset(seconds: number): number {
    const minute = Math.floor(seconds / 60)
    const cached = this.offsets.get(minute)
    if (cached !== undefined) return cached
    const wall = this.zoneParts(minute * 60)
    const offset = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second) / 1000 - minute * 60
    if (this.offsets.size >= 50_000) this.offsets.delete(this.offsets.keys().next().value!)
    this.offsets.set(minute, offset)
    return offset
  }

  /** The zone's calendar parts of a timestamp, straight from Intl. */
  zoneParts(seconds: number): Parts {
    const parts: Parts = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 }
    for (const part of this.format!.formatToParts(new Date(seconds * 1000))) {
      if (part.type in parts) parts[part.type as keyof Parts] = Number(part.value)
    }
    return parts
  }

  /** The zone's calendar parts of a timestamp. */
  parts(seconds: number): Parts {
    const local = this.format === null ? seconds : seconds + this.offset(seconds)
    const date = new Date(local * 1000)
    return {
      year: date.getUTCFullYear(),
      month: date.getUTCMonth() + 1,
      day: date.getUTCDate(),
      hour: date.getUTCHours(),
      minute: date.getUTCMinutes(),
      second: date.getUTCSeconds()
    }
  }

  /** `YYYY-MM-DD`. */
  date(seconds: number): string {
    const parts = this.parts(seconds)
    return `${parts.year}-${pad2(parts.month)}-${pad2(parts.day)}`
  }

  /** `HH:MM:SS`, 24-hour (full view). */
  time(seconds: number): string {
    const parts = this.parts(seconds)
    return `${pad2(parts.hour)}:${pad2(parts.minute)}:${pad2(parts.second)}`
  }

  /** `HH:MM`, 24-hour (short views). */
  shortTime(seconds: number): string {
    const parts = this.parts(seconds)
    return `${pad2(parts.hour)}:${pad2(parts.minute)}`
  }

  /** `Mon DD, YYYY @ hh:mm AM`: English month, two-digit day, two-digit 12-hour hour. */
  dateTime(seconds: number): string {
    const parts = this.parts(seconds)
    const hour12 = parts.hour % 12 === 0 ? 12 : parts.hour % 12
    return `${MONTHS[parts.month - 1]} ${pad2(parts.day)}, ${parts.year} @ ${pad2(hour12)}:${pad2(parts.minute)} ${parts.hour < 12 ? 'AM' : 'PM'}`
  }

  /** All four forms of one timestamp, computing the calendar parts once. */
  all(seconds: number): { dateTime: string; date: string; time: string; shortTime: string } {
    const parts = this.parts(seconds)
    const hour12 = parts.hour % 12 === 0 ? 12 : parts.hour % 12
    const hh = pad2(parts.hour)
    const mm = pad2(parts.minute)
    return {
      dateTime: `${MONTHS[parts.month - 1]} ${pad2(parts.day)}, ${parts.year} @ ${pad2(hour12)}:${mm} ${parts.hour < 12 ? 'AM' : 'PM'}`,
      date: `${parts.year}-${pad2(parts.month)}-${pad2(parts.day)}`,
      time: `${hh}:${mm}:${pad2(parts.second)}`,
      shortTime: `${hh}:${mm}`
    }
  }
}
