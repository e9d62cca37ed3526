import type { Kysely, QueryCreator } from 'kysely'
import type { Dialect } from '../../db/dialect.js'
import { prepare } from '../../db/prepared.js'
import type { DB } from '../../db/schema.js'
import { type HistoryParams, historyInsert, type ParamsOf } from './orders.repository.js'

type AddParams = { orderId: number; itemId: number; unitPrice: number; quantity: number; now: number }
/** The line an add wrote: its id (a repeat's is the existing line's) and its quantity now. */
export type AddedLine = { id: number; quantity: number }

// The unit price is copied on first add; a repeat only raises the quantity (D-54).
function addLine(db: QueryCreator<DB>, p: ParamsOf<AddParams>) {
  return db
    .insertInto('receipt_lines')
    .values({
      order_id: p('orderId') as number,
      item_id: p('itemId') as number,
      unit_price_cents: p('unitPrice') as number,
      quantity: p('quantity') as number,
      created_at: p('now') as number
    })
    .onConflict((oc) =>
      oc
        .columns(['order_id', 'item_id'])
        .doUpdateSet((eb) => ({ quantity: eb('receipt_lines.quantity', '+', eb.ref('excluded.quantity')) }))
    )
    .returning(['id', 'quantity'])
}

/**
 * SQL of receipt lines (D-54); always run inside the transaction that locked the order. On
 * PostgreSQL an add and its history entry are one statement (the entry written in WITH): a round
 * trip is most of what a write costs there (BENCHMARKS.md). SQLite runs the two one after the other.
 */
export function receiptsRepository(db: Kysely<DB>, dialect: Dialect) {
  const q = {
    add: prepare<AddParams, AddedLine>(db, (db, p) => addLine(db, p)),

    history: prepare<HistoryParams, unknown>(db, (db, p) => historyInsert(db, p)),

    addWithHistory: prepare<AddParams & HistoryParams, AddedLine>(db, (db, p) =>
      addLine(db.with('entry', (db) => historyInsert(db, p).returning('id')) as unknown as QueryCreator<DB>, p)
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
    /** Adds `quantity` of an item and the order's history entry; returns the line (new or raised). */
    add: async (trx: Kysely<DB>, row: AddParams, history: HistoryParams): Promise<AddedLine> => {
      if (dialect.name === 'postgres') return (await q.addWithHistory.first(trx, { ...row, ...history }))!
      const line = (await q.add.first(trx, row))!
      await q.history.run(trx, history)
      return line
    },
    /** Takes one off a line; the line goes when it reaches zero (D-54). */
    takeOne: async (trx: Kysely<DB>, line: { id: number; quantity: number }): Promise<void> => {
      await (line.quantity <= 1 ? q.delete : q.decrement).run(trx, { id: line.id })
    }
  }
}

export type ReceiptsRepository = ReturnType<typeof receiptsRepository>
