import type { StatementCompiler, Tx } from '../../db/statement.js'
import type { ItemRow, ServiceItemRow } from './items.views.js'

/** The fields an item update may change; a field left out keeps its value. */
export type ItemChanges = Partial<{ title: string; price_cents: number; image_url: string; group_name: string }>

type NewItem = { service_id: number; title: string; price_cents: number; image_url: string; group_name: string; created_at: number }

/** SQL of items (D-45, D-46), compiled once per database. */
export function itemsRepository(database: StatementCompiler) {
  // The service and its visible items in one query; one row of nulls when it has none.
  const ofService = database.prepare<{ key: string }, ServiceItemRow>('items.ofService', (db, param) =>
    db
      .selectFrom('services as s')
      .leftJoin('items as i', (join) => join.onRef('i.service_id', '=', 's.id').on('i.removed_at', 'is', null))
      .select(['s.name as service_name', 'i.id', 'i.title', 'i.image_url', 'i.price_cents', 'i.group_name'])
      .where('s.name_key', '=', param('key'))
      .orderBy('i.id')
  )

  const visible = database.prepare<{ id: number }, ItemRow>('items.visible', (db, param) =>
    db.selectFrom('items').select(['id', 'title', 'image_url', 'price_cents']).where('id', '=', param('id')).where('removed_at', 'is', null)
  )

  const insert = database.prepare<NewItem, { id: number }>('items.insert', (db, param) =>
    db
      .insertInto('items')
      .values({
        service_id: param('service_id'),
        title: param('title'),
        price_cents: param('price_cents'),
        image_url: param('image_url'),
        group_name: param('group_name'),
        created_at: param('created_at'),
        updated_at: param('created_at'),
        removed_at: null
      })
      .returning('id')
  )

  // One statement whatever is changed: a field sent as null keeps its value (no item field is null).
  type Update = { [K in keyof Required<ItemChanges>]: ItemChanges[K] | null } & { id: number; at: number }
  const update = database.prepare<Update, never>('items.update', (db, param) =>
    db
      .updateTable('items')
      .set((eb) => ({
        title: eb.fn.coalesce(eb.val(param('title')), 'title'),
        price_cents: eb.fn.coalesce(eb.val(param('price_cents')), 'price_cents'),
        image_url: eb.fn.coalesce(eb.val(param('image_url')), 'image_url'),
        group_name: eb.fn.coalesce(eb.val(param('group_name')), 'group_name'),
        updated_at: param('at')
      }))
      .where('id', '=', param('id'))
  )

  const markRemoved = database.prepare<{ id: number; at: number }, never>('items.markRemoved', (db, param) =>
    db
      .updateTable('items')
      .set({ removed_at: param('at'), updated_at: param('at') })
      .where('id', '=', param('id'))
  )

  return {
    ofService: (key: string) => ofService.rows({ key }),

    find: (tx: Tx, id: number): Promise<ItemRow | undefined> => visible.first({ id }, tx),

    insert: async (tx: Tx, row: NewItem): Promise<number> => Number((await insert.first(row, tx))!.id),

    update: async (tx: Tx, id: number, changes: ItemChanges, at: number): Promise<void> => {
      const { title = null, price_cents = null, image_url = null, group_name = null } = changes
      await update.run({ id, at, title, price_cents, image_url, group_name }, tx)
    },

    markRemoved: async (tx: Tx, id: number, at: number): Promise<void> => {
      await markRemoved.run({ id, at }, tx)
    }
  }
}

export type ItemsRepository = ReturnType<typeof itemsRepository>
