import { nameKey } from './name-key.js'

/** Hits a search answers when it names no limit (D-33). */
export const DEFAULT_SEARCH_LIMIT = 20

/**
 * Prefixes of each term `customer_search_terms` keeps, in code points; a longer query word reads the
 * rows of its first this many and compares the whole term. Migration 0016 keeps its own copy of the
 * number, and must stay equal to it.
 */
export const TERM_PREFIX_MAX = 8

/** D-33: a word of at least this many digits also matches inside the phone's digits. */
const PHONE_WORD_MIN = 3

/** A query word as the statements take it: the word, its kept prefix, and its length in code points. */
export interface QueryWord {
  word: string
  prefix: string
  length: number
}

const isShortNumber = (word: string) => word.length < PHONE_WORD_MIN && /^[0-9]+$/.test(word)

/**
 * The words of a search query that decide its hits (D-33), folded as the name keys are (`nameKey`),
 * each once, longest first (the likeliest to be rare). A word another word starts with is left out:
 * whatever the longer one matches, the shorter matches too. But for a number of fewer than 3
 * digits: it cannot match inside the phone, where the longer number may.
 */
export function queryWords(query: string): QueryWord[] {
  const words = [
    ...new Set(
      nameKey(query)
        .split(/\s+/)
        .filter((w) => w !== '')
    )
  ]
  return words
    .filter((word) => isShortNumber(word) || !words.some((other) => other !== word && other.startsWith(word)))
    .map((word) => {
      const points = [...word]
      return { word, prefix: points.slice(0, TERM_PREFIX_MAX).join(''), length: points.length }
    })
    .sort((a, b) => b.length - a.length)
}
