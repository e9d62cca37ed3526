import { type Kysely, sql } from 'kysely'
import type { DB } from '../../db/schema.js'
import type { Statement, StatementCompiler } from '../../db/statement.js'
import { DEFAULT_SEARCH_LIMIT, NAME_PREFIX_MAX, type PrefixRange } from './search.words.js'

/** A search hit as read; the view joins the names. */
export interface SearchRow {
  id: string
  first_name: string
  last_name: string
  email: string
}

// A word: the kept prefix it starts with (its first NAME_PREFIX_MAX code points) and its range.
type WordParams<N extends string> = { [K in `prefix${N}` | `from${N}` | `to${N}`]: string }
type OneWordParams = WordParams<'0'>
type TwoWordParams = WordParams<'0'> & WordParams<'1'>

/** A word's parameters in a statement: the kept prefix and the range of names it starts. */
interface WordRange {
  prefix: string
  from: string
  to: string
}

/**
 * Hits in result order from one range of `customer_name_prefixes` (migration 0008): the rows of
 * the word's kept prefix, whose first or last name starts with it, narrowed to names in the word's
 * range. With `last` (two words) the rows are also narrowed to last names in the other word's range:
 * the key is (prefix, last name, first name, id), so that is one contiguous range of the key too,
 * read in order until the limit, and a row in it has its first name in the word's range (no name
 * starts with both words, see queryWords).
 */
function hitsOf(db: Kysely<DB>, word: WordRange, limit: number, last?: WordRange) {
  let query = db
    .selectFrom('customer_name_prefixes')
    .select(['customer_id as id', 'first_name', 'last_name', 'email', 'last_name_lc', 'first_name_lc'])
    .where('prefix', '=', word.prefix)
  if (last === undefined) {
    // The range matters only for a word longer than the prefixes kept.
    query = query.where((eb) =>
      eb.or([
        eb.and([eb('first_name_lc', '>=', word.from), eb('first_name_lc', '<', word.to)]),
        eb.and([eb('last_name_lc', '>=', word.from), eb('last_name_lc', '<', word.to)])
      ])
    )
  } else {
    query = query
      .where('last_name_lc', '>=', last.from)
      .where('last_name_lc', '<', last.to)
      .where('first_name_lc', '>=', word.from)
      .where('first_name_lc', '<', word.to)
  }
  return query.orderBy('last_name_lc').orderBy('first_name_lc').orderBy('customer_id').limit(sql.lit(limit))
}

/**
 * Customer search by name prefixes (D-33): a statement per number of words and limit (1 to 100),
 * compiled on first use. The limit is written into the SQL: SQLite reads a range with a constant
 * LIMIT markedly faster than with a bound one, and 200 statements at most are few.
 */
export function searchRepository(database: StatementCompiler) {
  const oneWordByLimit = new Map<number, Statement<OneWordParams, SearchRow>>()
  const twoWordsByLimit = new Map<number, Statement<TwoWordParams, SearchRow>>()

  // D-33 for one word: its hits are one range of `customer_name_prefixes`, already in result order
  // and holding the fields of a hit, read until the limit.
  const oneWord = (limit: number) => {
    let statement = oneWordByLimit.get(limit)
    if (statement === undefined) {
      statement = database.prepare<OneWordParams, SearchRow>(`search.oneWord.limit${limit}`, (db, param) => {
        const word = { prefix: param('prefix0'), from: param('from0'), to: param('to0') }
        return db.selectFrom(hitsOf(db, word, limit).as('h')).select(['h.id', 'h.first_name', 'h.last_name', 'h.email'])
      })
      oneWordByLimit.set(limit, statement)
    }
    return statement
  }

  // D-33 for two words (queryWords leaves no word starting another, so no name starts with two of
  // them and a hit needs one word per name: more than two words never match): first name in one
  // word's range and last name in the other's, both ways, each one ordered key range of
  // `customer_name_prefixes` read until the limit. The union is ordered once more.
  const twoWords = (limit: number) => {
    let statement = twoWordsByLimit.get(limit)
    if (statement === undefined) {
      statement = database.prepare<TwoWordParams, SearchRow>(`search.twoWords.limit${limit}`, (db, param) => {
        const first = { prefix: param('prefix0'), from: param('from0'), to: param('to0') }
        const second = { prefix: param('prefix1'), from: param('from1'), to: param('to1') }
        const firstWordFirst = db.selectFrom(hitsOf(db, first, limit, second).as('a')).selectAll()
        const secondWordFirst = db.selectFrom(hitsOf(db, second, limit, first).as('b')).selectAll()
        return db
          .selectFrom(firstWordFirst.union(secondWordFirst).as('h'))
          .select(['h.id', 'h.first_name', 'h.last_name', 'h.email'])
          .orderBy('h.last_name_lc')
          .orderBy('h.first_name_lc')
          .orderBy('h.id')
          .limit(sql.lit(limit))
      })
      twoWordsByLimit.set(limit, statement)
    }
    return statement
  }
  // The default limit's statements are compiled at once, so `npm run sql` shows them.
  oneWord(DEFAULT_SEARCH_LIMIT)
  twoWords(DEFAULT_SEARCH_LIMIT)

  const keptPrefix = (word: PrefixRange) => [...word.from].slice(0, NAME_PREFIX_MAX).join('')

  return {
    /** Hits for one or two word ranges, read outside any transaction. */
    search(ranges: readonly [PrefixRange] | readonly [PrefixRange, PrefixRange], limit: number): Promise<SearchRow[]> {
      const [first, second] = ranges
      if (second === undefined) return oneWord(limit).rows({ prefix0: keptPrefix(first), from0: first.from, to0: first.to })
      return twoWords(limit).rows({
        prefix0: keptPrefix(first),
        from0: first.from,
        to0: first.to,
        prefix1: keptPrefix(second),
        from1: second.from,
        to1: second.to
      })
    }
  }
}

export type SearchRepository = ReturnType<typeof searchRepository>
