import type { Kysely } from 'kysely'
import { nameKey } from '../../modules/customers/name-key.js'
import type { Dialect } from '../dialect.js'

const PAGE = 1000

/**
 * Search keys fold accents and case fully since this migration (D-33, `nameKey`): before, they
 * were lower-cased only, so "jose" missed José and Ölund sorted after z. Every customer's
 * `first_name_lc` and `last_name_lc` is computed again, in pages by id; changing them rebuilds the
 * customer's rows of `customer_name_prefixes` through its update trigger (0008). Keys that are
 * already right (most: plain letters) are not written.
 */
export async function up(db: Kysely<any>, _d: Dialect): Promise<void> {
  let after = ''
  for (;;) {
    const rows: Array<{ id: string; first_name: string; last_name: string; first_name_lc: string; last_name_lc: string }> = await db
      .selectFrom('customers')
      .select(['id', 'first_name', 'last_name', 'first_name_lc', 'last_name_lc'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(PAGE)
      .execute()
    for (const row of rows) {
      const first = nameKey(row.first_name)
      const last = nameKey(row.last_name)
      if (first === row.first_name_lc && last === row.last_name_lc) continue
      await db.updateTable('customers').set({ first_name_lc: first, last_name_lc: last }).where('id', '=', row.id).execute()
    }
    if (rows.length < PAGE) return
    after = rows[rows.length - 1]!.id
  }
}
