import type { Kysely, Transaction } from 'kysely'
import { prepare } from '../../db/prepared.js'
import type { QueryRunner } from '../../db/query-runner.js'
import type { DB } from '../../db/schema.js'
import type { ItemRow, ServiceItemRow } from './items.views.js'

/** SQL of items (D-45, D-46). */
export function itemsRepository(db: Kysely<DB>) {
  // The service and its visible items in one query; one row of nulls when it has none.
  const ofService = prepare<{ key: string }, ServiceItemRow>(db, (db, p) =>
    db
      .selectFrom('services as s')
      .leftJoin('items as i', (join) => join.onRef('i.service_id', '=', 's.id').on('i.removed_at', 'is', null))
      .select(['s.name as service_name', 'i.id', 'i.title', 'i.image_url', 'i.price_cents', 'i.group_name'])
      .where('s.name_key', '=', p('key'))
      .orderBy('i.id')
  )

  function visibleItem(trx: Transaction<DB>, id: number) {
    return trx.selectFrom('items').select(['id', 'title', 'image_url', 'price_cents']).where('id', '=', id).where('removed_at', 'is', null)
  }

  return {
    ofService: (runner: QueryRunner, key: string) => ofService.rows(runner, { key }),

    find: (trx: Transaction<DB>, id: number): Promise<ItemRow | undefined> => visibleItem(trx, id).executeTakeFirst(),

    insert: async (
      trx: Transaction<DB>,
      row: { service_id: number; title: string; price_cents: number; image_url: string; group_name: string; created_at: number }
    ): Promise<number> => {
      const inserted = await trx
        .insertInto('items')
        .values({ ...row, removed_at: null, updated_at: row.created_at })
        .returning('id')
        .executeTakeFirstOrThrow()
      return Number(inserted.id)
    },

    update: async (
      trx: Transaction<DB>,
      id: number,
      changes: Partial<{ title: string; price_cents: number; image_url: string; group_name: string }>,
      at: number
    ): Promise<void> => {
      await trx
        .updateTable('items')
        .set({ ...changes, updated_at: at })
        .where('id', '=', id)
        .execute()
    },

    markRemoved: async (trx: Transaction<DB>, id: number, at: number): Promise<void> => {
      await trx.updateTable('items').set({ removed_at: at, updated_at: at }).where('id', '=', id).execute()
    }
  }
}

export type ItemsRepository = ReturnType<typeof itemsRepository>
