import { nameKey } from '../customers/index.js'
import type { BoardOrderRow } from './board.views.js'

const WORDS = /\s+/

/** The words of a name as search folds them (D-33): case and accents ignored. */
function nameWords(name: string): string[] {
  return nameKey(name)
    .split(WORDS)
    .filter((word) => word !== '')
}

/**
 * Which orders a board filter keeps (trimmed, not empty): those whose code starts with it (when it
 * is digits), whose customer's e-mail starts with it, or whose customer's first and last name
 * words are each started by a word of it, as search matches names (D-33: "jo sm" keeps John
 * Smith, "zoe" Zoë; "mith" keeps no Smith). Case and accents are ignored throughout.
 */
export function boardFilter(filter: string): (row: BoardOrderRow) => boolean {
  const digits = /^[0-9]+$/.test(filter) ? filter : undefined
  const folded = nameKey(filter)
  const words = nameWords(filter)
  return (row) => {
    if (digits !== undefined && String(row.code).startsWith(digits)) return true
    if (nameKey(row.email).startsWith(folded)) return true
    const names = [...nameWords(row.first_name), ...nameWords(row.last_name)]
    return words.every((word) => names.some((name) => name.startsWith(word)))
  }
}
