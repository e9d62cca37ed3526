import { type Kysely, sql } from 'kysely'
import { NAME_PREFIX_MAX } from '../../db/migrations/0008_customer_name_prefixes.js'
import { type Param, type PreparedQuery, prepare } from '../../db/prepared.js'
import type { QueryRunner } from '../../db/query-runner.js'
import type { DB } from '../../db/schema.js'
import type { PrefixRange } from './search.words.js'

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

/**
 * Hits in result order from one range of `customer_name_prefixes` (migration 0008): the rows of
 * the word's kept prefix, whose first or last name starts with it, narrowed to names in the word's
 * range. With `last` (two words) the rows are also narrowed to last names in the other word's range:
 * the key is (prefix, last name, first name, id), so that is one contiguous range of the key too,
 * read in order until the limit, and a row in it has its first name in the word's range (no name
 * starts with both words, see queryWords).
 */
function hitsOf<P extends OneWordParams | TwoWordParams>(db: Kysely<DB>, p: Param<P>, limit: number, word: '0' | '1', last?: '0' | '1') {
  const at = <K extends string>(name: K) => p(name as never) as unknown as string
  let query = db
    .selectFrom('customer_name_prefixes')
    .select(['customer_id as id', 'first_name', 'last_name', 'email', 'last_name_lc', 'first_name_lc'])
    .where('prefix', '=', at(`prefix${word}`))
  if (last === undefined) {
    // The range matters only for a word longer than the prefixes kept.
    query = query.where((eb) =>
      eb.or([
        eb.and([eb('first_name_lc', '>=', at(`from${word}`)), eb('first_name_lc', '<', at(`to${word}`))]),
        eb.and([eb('last_name_lc', '>=', at(`from${word}`)), eb('last_name_lc', '<', at(`to${word}`))])
      ])
    )
  } else {
    query = query
      .where('last_name_lc', '>=', at(`from${last}`))
      .where('last_name_lc', '<', at(`to${last}`))
      .where('first_name_lc', '>=', at(`from${word}`))
      .where('first_name_lc', '<', at(`to${word}`))
  }
  return query.orderBy('last_name_lc').orderBy('first_name_lc').orderBy('customer_id').limit(sql.lit(limit))
}

/**
 * D-33 for one word: its hits are one range of `customer_name_prefixes`, already in result order
 * and holding the fields of a hit, read until the limit.
 */
function oneWordQuery(db: Kysely<DB>, limit: number): PreparedQuery<OneWordParams, SearchRow> {
  return prepare<OneWordParams, SearchRow>(db, (db, p) => {
    const hits = hitsOf(db, p, limit, '0')
    return db.selectFrom(hits.as('h')).select(['h.id', 'h.first_name', 'h.last_name', 'h.email'])
  })
}

/**
 * D-33 for two words (queryWords leaves no word starting another, so no name starts with two of
 * them and a hit needs one word per name: more than two words never match): first name in one
 * word's range and last name in the other's, both ways, each one ordered key range of
 * `customer_name_prefixes` read until the limit. The union is ordered once more.
 */
function twoWordQuery(db: Kysely<DB>, limit: number): PreparedQuery<TwoWordParams, SearchRow> {
  return prepare<TwoWordParams, SearchRow>(db, (db, p) => {
    const firstWordFirst = db.selectFrom(hitsOf(db, p, limit, '0', '1').as('a')).selectAll()
    const secondWordFirst = db.selectFrom(hitsOf(db, p, limit, '1', '0').as('b')).selectAll()
    return db
      .selectFrom(firstWordFirst.union(secondWordFirst).as('h'))
      .select(['h.id', 'h.first_name', 'h.last_name', 'h.email'])
      .orderBy('h.last_name_lc')
      .orderBy('h.first_name_lc')
      .orderBy('h.id')
      .limit(sql.lit(limit))
  })
}

/**
 * Customer search by name prefixes (D-33). One statement is compiled per number of words and
 * limit (1 to 100), on first use, with the limit written into the SQL as a constant.
 */
export function searchRepository(db: Kysely<DB>) {
  const oneWord = new Map<number, PreparedQuery<OneWordParams, SearchRow>>()
  const twoWords = new Map<number, PreparedQuery<TwoWordParams, SearchRow>>()
  const keptPrefix = (word: PrefixRange) => [...word.from].slice(0, NAME_PREFIX_MAX).join('')

  return {
    /** Hits for one or two word ranges, read outside any transaction. */
    search(runner: QueryRunner, ranges: readonly [PrefixRange] | readonly [PrefixRange, PrefixRange], limit: number): Promise<SearchRow[]> {
      const [first, second] = ranges
      if (second === undefined) {
        let query = oneWord.get(limit)
        if (query === undefined) {
          query = oneWordQuery(db, limit)
          oneWord.set(limit, query)
        }
        return query.rows(runner, { prefix0: keptPrefix(first), from0: first.from, to0: first.to })
      }
      let query = twoWords.get(limit)
      if (query === undefined) {
        query = twoWordQuery(db, limit)
        twoWords.set(limit, query)
      }
      return query.rows(runner, {
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
