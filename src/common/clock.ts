/** The source of "now" for everything that stores or compares time; tests swap in a fixed clock. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() }

/** A clock that only moves when told to; for tests of expiry and windows. */
export class ManualClock implements Clock {
  constructor(private current: number = Date.UTC(2026, 10, 1, 12, 0, 0)) {}
  now(): number {
    return this.current
  }
  /** Moves the clock forward by `ms` milliseconds. */
  advance(ms: number): void {
    this.current += ms
  }
  set(ms: number): void {
    this.current = ms
  }
}
