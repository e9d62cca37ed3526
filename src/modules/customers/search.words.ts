import { nameKey } from './name-key.js'

/**
 * Prefixes of each name `customer_name_prefixes` keeps, in code points; a longer query word reads
 * its first this many. Migration 0008 keeps its own copy of the number, and must stay equal to it.
 */
/** Hits a search answers when it names no limit (D-33). */
export const DEFAULT_SEARCH_LIMIT = 20

export const NAME_PREFIX_MAX = 8

/** One query word as a half-open range of lower-cased names starting with it: `from <= name < to`. */
export interface PrefixRange {
  from: string
  to: string
}

/**
 * The words of a search query that decide its hits (D-33), folded as the `_lc` columns are (`nameKey`):
 * each once, and without words another word starts with (whatever name matches "john" also
 * matches "jo"). So no name can start with two of them: a hit has one word per name, and more than
 * two words match nobody.
 */
export function queryWords(query: string): string[] {
  const words = [
    ...new Set(
      nameKey(query)
        .split(/\s+/)
        .filter((w) => w !== '')
    )
  ]
  return words.filter((word) => !words.some((other) => other !== word && other.startsWith(word)))
}

const MAX_CODE_POINT = 0x10ffff

/**
 * The names starting with `prefix`, as a range both databases answer from an index: SQLite's
 * BINARY and PostgreSQL's "C" collations order text by code point, so these are exactly the texts
 * `t` with `prefix <= t < to`, where `to` is the prefix with its last code point raised by one.
 */
export function prefixRange(prefix: string): PrefixRange {
  const points = [...prefix].map((char) => char.codePointAt(0)!)
  while (points.length > 0) {
    let last = points.pop()!
    if (last === MAX_CODE_POINT) continue
    last += 1
    // Lone surrogates are not text either database stores; step over them.
    if (last >= 0xd800 && last <= 0xdfff) last = 0xe000
    points.push(last)
    return { from: prefix, to: String.fromCodePoint(...points) }
  }
  // Only U+10FFFF characters: no text is just above them, but a name (at most 100 characters, and
  // at most twice that lower-cased) is below the prefix followed by more of them than that.
  return { from: prefix, to: prefix + String.fromCodePoint(MAX_CODE_POINT).repeat(201) }
}
