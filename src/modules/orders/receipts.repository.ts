import type { Kysely } from 'kysely'
import { prepare } from '../../db/prepared.js'
import type { DB } from '../../db/schema.js'

/** SQL of receipt lines (D-54); always run inside the transaction that locked the order. */
export function receiptsRepository(db: Kysely<DB>) {
  const q = {
    item: prepare<{ id: number }, { id: number; service_id: number; price_cents: number; title: string }>(db, (db, p) =>
      db
        .selectFrom('items')
        .select(['id', 'service_id', 'price_cents', 'title'])
        .where('id', '=', p('id'))
        .where('removed_at', 'is', null)
    ),

    // The unit price is copied on first add; a repeat only raises the quantity (D-54).
    add: prepare<{ orderId: number; itemId: number; unitPrice: number; quantity: number; now: number }, { quantity: number }>(db, (db, p) =>
      db
        .insertInto('receipt_lines')
        .values({
          order_id: p('orderId'),
          item_id: p('itemId'),
          unit_price_cents: p('unitPrice'),
          quantity: p('quantity'),
          created_at: p('now')
        })
        .onConflict((oc) =>
          oc.columns(['order_id', 'item_id']).doUpdateSet((eb) => ({ quantity: eb('receipt_lines.quantity', '+', eb.ref('excluded.quantity')) }))
        )
        .returning('quantity')
    ),

    line: prepare<{ orderId: number; itemId: number }, { id: number; quantity: number; title: string }>(db, (db, p) =>
      db
        .selectFrom('receipt_lines as rl')
        .innerJoin('items as i', 'i.id', 'rl.item_id')
        .select(['rl.id', 'rl.quantity', 'i.title'])
        .where('rl.order_id', '=', p('orderId'))
        .where('rl.item_id', '=', p('itemId'))
    ),

    decrement: prepare<{ id: number }, unknown>(db, (db, p) =>
      db
        .updateTable('receipt_lines')
        .set((eb) => ({ quantity: eb('quantity', '-', 1) }))
        .where('id', '=', p('id'))
    ),

    delete: prepare<{ id: number }, unknown>(db, (db, p) => db.deleteFrom('receipt_lines').where('id', '=', p('id')))
  }

  return {
    /** A visible catalogue item. */
    item: (trx: Kysely<DB>, id: number) => q.item.first(trx, { id }),
    /** Adds `quantity` of an item; returns the line's new quantity. */
    add: async (trx: Kysely<DB>, row: { orderId: number; itemId: number; unitPrice: number; quantity: number; now: number }) =>
      (await q.add.first(trx, row))!.quantity,
    line: (trx: Kysely<DB>, orderId: number, itemId: number) => q.line.first(trx, { orderId, itemId }),
    /** Takes one off a line; the line goes when it reaches zero (D-54). */
    takeOne: async (trx: Kysely<DB>, line: { id: number; quantity: number }): Promise<void> => {
      await (line.quantity <= 1 ? q.delete : q.decrement).run(trx, { id: line.id })
    }
  }
}

export type ReceiptsRepository = ReturnType<typeof receiptsRepository>
