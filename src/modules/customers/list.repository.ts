import type { StatementCompiler } from '../../db/statement.js'

/** Where a page starts: the sort keys of the last customer of the page before. */
export interface ListPosition {
  last: string
  first: string
  id: string
}

/** A customer as listed. */
export interface ListRow {
  id: string
  first_name: string
  last_name: string
  email: string
  phone: string
  last_name_lc: string
  first_name_lc: string
}

const COLUMNS = ['c.id', 'c.first_name', 'c.last_name', 'c.email', 'c.phone', 'c.last_name_lc', 'c.first_name_lc'] as const

/**
 * Customers by last name, first name and id, keyset paginated: each page one range of the index
 * `customers_last_name_search` (migration 0002), read from where the page before ended.
 */
export function listRepository(database: StatementCompiler) {
  const firstPage = database.prepare<{ limit: number }, ListRow>('customers.list', (db, param) =>
    db
      .selectFrom('customers as c')
      .select(COLUMNS)
      .orderBy('c.last_name_lc')
      .orderBy('c.first_name_lc')
      .orderBy('c.id')
      .limit(param('limit'))
  )
  const laterPage = database.prepare<ListPosition & { limit: number }, ListRow>('customers.listAfter', (db, param) =>
    db
      .selectFrom('customers as c')
      .select(COLUMNS)
      .where((eb) =>
        eb(eb.refTuple('c.last_name_lc', 'c.first_name_lc', 'c.id'), '>', eb.tuple(param('last'), param('first'), param('id')))
      )
      .orderBy('c.last_name_lc')
      .orderBy('c.first_name_lc')
      .orderBy('c.id')
      .limit(param('limit'))
  )

  return {
    /** Up to `limit` customers after `after` (from the first without it), read outside any transaction. */
    page: (limit: number, after?: ListPosition): Promise<ListRow[]> =>
      after === undefined ? firstPage.rows({ limit }) : laterPage.rows({ ...after, limit })
  }
}

export type ListRepository = ReturnType<typeof listRepository>
