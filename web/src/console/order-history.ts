import type { HistoryEntry } from '../shared/api-types'
import { h } from '../shared/dom'
import { shopTime } from '../shared/time-zone'

const FIELD_WORDS: Record<string, string> = { pickup_timestamp: 'pickup time', delivery_timestamp: 'delivery time', note: 'note' }
const CHANGED = /^Changed ((?:pickup_timestamp|delivery_timestamp|note)(?:, (?:pickup_timestamp|delivery_timestamp|note))*)$/

/** `a`, `a and b`, `a, b and c`. */
function listed(words: string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`
}

/**
 * What happened, and where it left the order, for people (D-56). Receipt entries and field
 * changes carry their own words in `description`; the others carry the step's description.
 */
function told(entry: HistoryEntry): { what: string; where: string } {
  const step = `step ${entry.position_number}: ${entry.description}`
  switch (entry.type) {
    case 'created':
      return { what: 'Order placed', where: `at ${step}` }
    case 'moved':
      return { what: 'Moved on', where: `to ${step}` }
    case 'closed':
      return { what: 'Closed', where: `at ${step}` }
    case 'reopened':
      return { what: 'Reopened', where: `at ${step}` }
    case 'updated': {
      const fields = CHANGED.exec(entry.description)
      if (fields === null) return { what: 'Service changed', where: `restarted at ${step}` }
      return { what: `Changed the ${listed(fields[1]!.split(', ').map((f) => FIELD_WORDS[f] ?? f))}`, where: '' }
    }
    case 'receipt_added':
    case 'receipt_removed':
      return { what: entry.description, where: '' }
    case 'tracked':
      return { what: 'Tracking update', where: `at ${step}` }
    default:
      return { what: entry.type, where: step }
  }
}

/** Who did it (D-17): the staff member's or key's name, else the kind of caller. */
function who(entry: Pick<HistoryEntry, 'actor' | 'by'>): string {
  if (entry.by !== '') return `by ${entry.by}`
  switch (entry.actor) {
    case 'customer':
      return 'by the customer'
    case 'system':
      return 'automatically'
    case 'app':
      return 'through the app'
    default:
      return `by ${entry.actor}`
  }
}

/** The order's history as a timeline, oldest first (D-56): "Moved on — by Ana Lopez". */
export function timeline(history: readonly HistoryEntry[]): HTMLElement {
  if (history.length === 0) return h('p', { class: 'empty' }, 'Nothing has happened to this order yet.')
  return h(
    'ol',
    { class: 'timeline' },
    history.map((entry) => {
      const { what, where } = told(entry)
      return h(
        'li',
        { 'data-type': entry.type },
        h('time', { datetime: entry.at }, shopTime.formatIso(entry.at)),
        h('strong', {}, what),
        h('span', { class: 'actor' }, ` — ${who(entry)}`),
        where === '' ? null : h('span', { class: 'where' }, ` · ${where}`)
      )
    })
  )
}
