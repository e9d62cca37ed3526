import { type Kysely, type RawBuilder, sql } from 'kysely'
import type { Dialect } from '../../db/dialect.js'
import type { DB } from '../../db/schema.js'
import type { Param, Statement, StatementCompiler } from '../../db/statement.js'
import { DEFAULT_SEARCH_LIMIT, type QueryWord, TERM_PREFIX_MAX } from './search.words.js'

/** A search hit as read; the view joins the names. */
export interface SearchRow {
  id: string
  first_name: string
  last_name: string
  email: string
}

type OneWordParams = QueryWord

interface WordsParams {
  /** The words, as a JSON array of strings; the walk starts from the first one's rows. */
  words: string
  count: number
  limit: number
  /** U+0001: appended to an order key, the least text above it (no key holds a control character). */
  above: string
}

// The least text above an order key.
const ABOVE_ANY_KEY = '\u0001'

/**
 * The hits of one word (D-33): the rows of its kept prefix whose term starts with it, by order key,
 * each customer once (a customer may have several terms starting with it), the first `limit`, with
 * the fields of a hit from `customers`. One range of the primary key, read in order until the limit.
 */
function oneWordHits(db: Kysely<DB>, param: Param<OneWordParams>, limit: number) {
  const keys = db
    .selectFrom('customer_search_terms as t')
    .select(['t.order_key', (eb) => eb.fn.min('t.customer_id').as('customer_id')])
    .where('t.prefix', '=', param('prefix'))
    .where((eb) => eb(eb.fn('substr', ['t.term', eb.lit(1), eb.val(param('length'))]), '=', param('word')))
    .groupBy('t.order_key')
    .orderBy('t.order_key')
    .limit(sql.lit(limit))
  return db
    .selectFrom(keys.as('h'))
    .innerJoin('customers as c', 'c.id', 'h.customer_id')
    .select(['c.id', 'c.first_name', 'c.last_name', 'c.email'])
    .orderBy('h.order_key')
}

/**
 * The least order key at or above `bound` of a customer with a term starting with `word`. A word
 * of at most 8 code points is its prefix and needs no look at the terms, which lets PostgreSQL's
 * planner see one ordered index seek; a longer one reads its first 8 and compares the whole term.
 */
function seek(word: RawBuilder<string>, bound: RawBuilder<string>): RawBuilder<string> {
  const max = sql.lit(TERM_PREFIX_MAX)
  return sql<string>`case when length(${word}) <= ${max}
    then (select t.order_key from customer_search_terms as t
      where t.prefix = ${word} and t.order_key >= ${bound}
      order by t.order_key limit 1)
    else (select t.order_key from customer_search_terms as t
      where t.prefix = substr(${word}, 1, ${max}) and t.order_key >= ${bound} and substr(t.term, 1, length(${word})) = ${word}
      order by t.order_key limit 1)
    end`
}

/**
 * The hits of several words, or of one longer than a kept prefix (D-33): the customers in every
 * word's rows, as a leapfrog walk of the words' key ranges in a recursive query, one index seek a
 * step. Each step seeks the next word's least key at or above the current one: landing on it, one
 * more word agrees; above it, that key is the new candidate, agreed by that word alone. All
 * agreeing is a hit, and the walk goes on above it. Keys only rise, and none is passed over that
 * every word has, so hits come in order, each once, and the walk ends at the limit or when a word
 * has no key left. It reads no more than the words' ranges, and far less where one word is rare
 * ("jo sm" leaps to the Smiths).
 *
 * Row: `x` the key found, `b` the key it was sought from, `base` how many words agreed on `b`,
 * `i` and `word` the word to seek next, `hits` found before this row.
 */
function wordsHits(db: Kysely<DB>, param: Param<WordsParams>, dialect: Dialect) {
  const count = sql<number>`cast(${param('count')} as integer)`
  const wordAt = (index: RawBuilder<number>) => dialect.jsonArrayText(sql`${param('words')}`, index)
  const first = wordAt(sql<number>`0`)
  const agree = sql<number>`case when w.x = w.b then w.base + 1 else 1 end`
  const hit = sql<boolean>`(${agree}) = ${count}`
  const bound = sql<string>`case when ${hit} then w.x || ${param('above')} else w.x end`
  const start = seek(first, sql<string>`''`)
  const second = sql<number>`1 % ${count}`
  const next = sql<number>`(w.i + 1) % ${count}`
  const hitCount = sql<number>`case when ${hit} then 1 else 0 end`
  return db
    .withRecursive('walk(x, b, base, i, word, hits)', (qc) =>
      qc
        .selectNoFrom([
          start.as('x'),
          start.as('b'),
          sql.lit(0).as('base'),
          second.as('i'),
          wordAt(second).as('word'),
          sql.lit(0).as('hits')
        ])
        .unionAll(
          qc
            .selectFrom(sql`walk`.as('w'))
            .select([
              seek(sql`w.word`, bound).as('x'),
              bound.as('b'),
              sql<number>`case when ${hit} then 0 else ${agree} end`.as('base'),
              next.as('i'),
              wordAt(next).as('word'),
              sql<number>`w.hits + ${hitCount}`.as('hits')
            ])
            .where(sql<boolean>`w.x is not null and w.hits + ${hitCount} < ${param('limit')}`)
        )
    )
    .selectFrom('walk as w')
    .innerJoin('customers as c', (join) =>
      join.on(
        'c.id',
        '=',
        sql<string>`(select t.customer_id from customer_search_terms as t
          where t.prefix = substr(${first}, 1, ${sql.lit(TERM_PREFIX_MAX)}) and t.order_key = w.x limit 1)`
      )
    )
    .select(['c.id', 'c.first_name', 'c.last_name', 'c.email'])
    .where(sql<boolean>`w.x is not null and ${hit}`)
    .orderBy('w.x')
}

/**
 * Customer search (D-33) over `customer_search_terms` (migration 0016). One word: a statement per
 * limit (1 to 100), compiled on first use, the limit written into the SQL (SQLite reads a range
 * with a constant LIMIT markedly faster than with a bound one). Several words: the walk, one
 * statement, the words a JSON parameter and the limit a count it keeps. Where plans may be generic
 * (PostgreSQL) a short word walks too: a generic plan for a prefix reads and sorts its whole range,
 * thousands of rows for "j", where the walk's seeks read as many as it answers. A long word's range
 * is one of 8 code points, small, whatever the plan.
 */
export function searchRepository(database: StatementCompiler) {
  const oneWordByLimit = new Map<number, Statement<OneWordParams, SearchRow>>()
  const oneWord = (limit: number) => {
    let statement = oneWordByLimit.get(limit)
    if (statement === undefined) {
      statement = database.prepare<OneWordParams, SearchRow>(`search.oneWord.limit${limit}`, (db, param) => oneWordHits(db, param, limit))
      oneWordByLimit.set(limit, statement)
    }
    return statement
  }
  // The default limit's statement is compiled at once, so `npm run sql` shows it.
  oneWord(DEFAULT_SEARCH_LIMIT)
  const words = database.prepare<WordsParams, SearchRow>('search.words', (db, param) => wordsHits(db, param, database.dialect))

  return {
    /** Customers matching every word, ordered, at most `limit`; read outside any transaction. */
    search(query: readonly [QueryWord, ...QueryWord[]], limit: number): Promise<SearchRow[]> {
      const [first] = query
      if (query.length === 1 && (first.length > TERM_PREFIX_MAX || !database.dialect.genericPlans)) return oneWord(limit).rows(first)
      return words.rows({ words: JSON.stringify(query.map((w) => w.word)), count: query.length, limit, above: ABOVE_ANY_KEY })
    }
  }
}

export type SearchRepository = ReturnType<typeof searchRepository>
