import { sql, type Kysely } from 'kysely'
import { NAME_PREFIX_MAX } from '../../db/migrations/0008_customer_name_prefixes.js'
import { prepare, type Param, type PreparedQuery } from '../../db/prepared.js'
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

type NameKey = 'first_name_lc' | 'last_name_lc'

// from0/to0, from1/to1: the word ranges. The limit is written into the SQL (see searchRepository).
type SearchParams = { from0: string; to0: string; from1: string; to1: string }

/**
 * One branch of a search: the ids and sort keys of customers whose `driver` name is in a word's
 * range (and, for two words, whose other name is in the other word's range), in result order,
 * at most `limit`. Only index columns are read, so a branch never touches the table.
 */
function branch(db: Kysely<DB>, p: Param<SearchParams>, limit: number, driver: NameKey, word: 0 | 1, other?: { column: NameKey; word: 0 | 1 }) {
  let query = db
    .selectFrom('customers')
    .select(['id', 'last_name_lc', 'first_name_lc'])
    .where(driver, '>=', p(`from${word}`))
    .where(driver, '<', p(`to${word}`))
  if (other !== undefined) {
    query = query.where(other.column, '>=', p(`from${other.word}`)).where(other.column, '<', p(`to${other.word}`))
  }
  query =
    driver === 'last_name_lc'
      ? // The last-name index gives this order itself: the scan stops after `limit` hits.
        query.orderBy('last_name_lc')
      : // Sorting by an expression keeps both planners on the first-name index's range: walking the
        // whole last-name index in order, filtering on first names, is far slower for rare prefixes.
        query.orderBy(sql`${sql.ref('last_name_lc')} || ''`)
  return db.selectFrom(query.orderBy('first_name_lc').orderBy('id').limit(sql.lit(limit)).as('b')).select(['id', 'last_name_lc', 'first_name_lc'])
}

type OneWordParams = { prefix: string; from: string; to: string }

/**
 * D-33 for one word: its hits are one range of `customer_name_prefixes` (migration 0008), already
 * in result order and holding the fields of a hit, read until the limit. The range filter matters
 * only for a word longer than the prefixes kept; for any other it holds for every row of the prefix.
 */
function oneWordQuery(db: Kysely<DB>, limit: number): PreparedQuery<OneWordParams, SearchRow> {
  return prepare<OneWordParams, SearchRow>(db, (db, p) =>
    db
      .selectFrom('customer_name_prefixes')
      .select(['customer_id as id', 'first_name', 'last_name', 'email'])
      .where('prefix', '=', p('prefix'))
      .where((eb) =>
        eb.or([
          eb.and([eb('first_name_lc', '>=', p('from')), eb('first_name_lc', '<', p('to'))]),
          eb.and([eb('last_name_lc', '>=', p('from')), eb('last_name_lc', '<', p('to'))])
        ])
      )
      .orderBy('last_name_lc')
      .orderBy('first_name_lc')
      .orderBy('customer_id')
      .limit(sql.lit(limit))
  )
}

/**
 * D-33 for two words (queryWords leaves no word starting another, so no name starts with two of
 * them and a hit needs one word per name: more than two words never match): first name in one
 * word's range and last name in the other's, both ways, each an ordered last-name index scan. The
 * union is ordered once more and only its hits are read from the table.
 */
function twoWordQuery(db: Kysely<DB>, limit: number): PreparedQuery<SearchParams, SearchRow> {
  return prepare<SearchParams, SearchRow>(db, (db, p) => {
    const hits = branch(db, p, limit, 'last_name_lc', 0, { column: 'first_name_lc', word: 1 }).union(
      branch(db, p, limit, 'last_name_lc', 1, { column: 'first_name_lc', word: 0 })
    )
    return db
      .selectFrom(hits.as('h'))
      .innerJoin('customers as c', 'c.id', 'h.id')
      .select(['c.id', 'c.first_name', 'c.last_name', 'c.email'])
      .orderBy('h.last_name_lc')
      .orderBy('h.first_name_lc')
      .orderBy('h.id')
      .limit(sql.lit(limit))
  })
}

/**
 * Customer search by name prefixes (D-33). One statement is compiled per number of words and
 * limit (1 to 100), on first use: with the limit written into the SQL, SQLite plans the sorts as
 * bounded top-N sorts, about 1.5 to 2.5 times faster than with a bound parameter (BENCHMARKS.md).
 */
export function searchRepository(db: Kysely<DB>) {
  const oneWord = new Map<number, PreparedQuery<OneWordParams, SearchRow>>()
  const twoWords = new Map<number, PreparedQuery<SearchParams, SearchRow>>()

  return {
    /** Hits for one or two word ranges, read outside any transaction. */
    search(runner: QueryRunner, ranges: readonly [PrefixRange] | readonly [PrefixRange, PrefixRange], limit: number): Promise<SearchRow[]> {
      const [first, second] = ranges
      if (second === undefined) {
        let query = oneWord.get(limit)
        if (query === undefined) oneWord.set(limit, (query = oneWordQuery(db, limit)))
        const prefix = [...first.from].slice(0, NAME_PREFIX_MAX).join('')
        return query.rows(runner, { prefix, from: first.from, to: first.to })
      }
      let query = twoWords.get(limit)
      if (query === undefined) twoWords.set(limit, (query = twoWordQuery(db, limit)))
      return query.rows(runner, { from0: first.from, to0: first.to, from1: second.from, to1: second.to })
    }
  }
}

export type SearchRepository = ReturnType<typeof searchRepository>
