import type { QueryCreator } from 'kysely'
import type { DB } from '../../db/schema.js'
import { type Param, type StatementCompiler, type Tx, withWrite } from '../../db/statement.js'
import { type HistoryParams, historyInsert } from './order-writes.repository.js'

type AddParams = { orderId: number; itemId: number; unitPrice: number; quantity: number; now: number }
/** The line an add wrote: its id (a repeat's is the existing line's) and its quantity now. */
export type AddedLine = { id: number; quantity: number }

// The unit price is copied on first add; a repeat only raises the quantity (D-54).
function addLine(db: QueryCreator<DB>, param: Param<AddParams>) {
  return db
    .insertInto('receipt_lines')
    .values({
      order_id: param('orderId'),
      item_id: param('itemId'),
      unit_price_cents: param('unitPrice'),
      quantity: param('quantity'),
      created_at: param('now')
    })
    .onConflict((oc) =>
      oc
        .columns(['order_id', 'item_id'])
        .doUpdateSet((eb) => ({ quantity: eb('receipt_lines.quantity', '+', eb.ref('excluded.quantity')) }))
    )
    .returning(['id', 'quantity'])
}

/**
 * SQL of receipt lines (D-54); always run inside the transaction that locked the order. Where the
 * database writes in WITH (PostgreSQL), an add and its history entry are one statement: a round
 * trip is most of what a write costs there. Elsewhere the two run one after the other.
 */
export function receiptsRepository(database: StatementCompiler) {
  const inWith = database.dialect.supportsWritesInWith

  const statements = {
    add: database.prepare<AddParams, AddedLine>('receipts.add', (db, param) => addLine(db, param)),

    history: database.prepare<HistoryParams, never>('receipts.history', (db, param) => historyInsert(db, param)),

    addWithHistory: inWith
      ? database.prepare<AddParams & HistoryParams, AddedLine>('receipts.addWithHistory', (db, param) =>
          addLine(
            withWrite(db, 'entry', (db) => historyInsert(db, param).returning('id')),
            param
          )
        )
      : undefined,

    decrement: database.prepare<{ id: number }, never>('receipts.decrement', (db, param) =>
      db
        .updateTable('receipt_lines')
        .set((eb) => ({ quantity: eb('quantity', '-', 1) }))
        .where('id', '=', param('id'))
    ),

    delete: database.prepare<{ id: number }, never>('receipts.delete', (db, param) =>
      db.deleteFrom('receipt_lines').where('id', '=', param('id'))
    )
  }

  return {
    /** Adds `quantity` of an item and the order's history entry; returns the line (new or raised). */
    add: async (tx: Tx, row: AddParams, history: HistoryParams): Promise<AddedLine> => {
      if (statements.addWithHistory !== undefined) return (await statements.addWithHistory.first({ ...row, ...history }, tx))!
      const line = (await statements.add.first(row, tx))!
      await statements.history.run(history, tx)
      return line
    },
    /** Takes one off a line; the line goes when it reaches zero (D-54). */
    takeOne: async (tx: Tx, line: { id: number; quantity: number }): Promise<void> => {
      await (line.quantity <= 1 ? statements.delete : statements.decrement).run({ id: line.id }, tx)
    }
  }
}

export type ReceiptsRepository = ReturnType<typeof receiptsRepository>
