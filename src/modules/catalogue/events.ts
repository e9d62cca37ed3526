/** The events a step can carry (D-41, spec Events). */
export const EVENT_NAMES = ['email', 'text', 'trak'] as const

export type EventName = (typeof EVENT_NAMES)[number]

/** As sent: a name, or `{"event": name}` as the service view writes them. */
export type EventInput = string | { event: string }

/** The event names of the input, in order, each once; or the index of the first unknown one. */
export function parseEvents(input: readonly EventInput[]): { events: EventName[] } | { unknownAt: number } {
  const events: EventName[] = []
  for (let i = 0; i < input.length; i++) {
    const entry = input[i]!
    const name = typeof entry === 'string' ? entry : entry.event
    if (!(EVENT_NAMES as readonly string[]).includes(name)) return { unknownAt: i }
    if (!events.includes(name as EventName)) events.push(name as EventName)
  }
  return { events }
}

/** Events as stored in a step row: comma-separated names. */
export function encodeEvents(events: readonly EventName[]): string {
  return events.join(',')
}

export function decodeEvents(stored: string): EventName[] {
  return stored === '' ? [] : (stored.split(',') as EventName[])
}
