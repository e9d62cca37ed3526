import { type Kysely, sql } from 'kysely'
import { type ExportTable, isoTime } from '../../common/export-table.js'
import type { DB } from '../../db/schema.js'

/**
 * orders.csv, receipt_lines.csv and history.csv (D-94), keyed by the wire's ids (transaction_id,
 * transaction_code, receipt_id, item_id); totals summed in integer cents as the full view does (D-54).
 */
export async function exportOrders(db: Kysely<DB>): Promise<ExportTable[]> {
  const orders = await db
    .selectFrom('orders as o')
    .innerJoin('services as s', 's.id', 'o.service_id')
    .innerJoin('service_steps as st', 'st.id', 'o.step_id')
    .select(['o.public_id', 'o.code', 'o.customer_id', 's.public_id as service_id', 'st.position', 'o.status'])
    .select(['o.pickup_at', 'o.delivery_at', 'o.note', 'o.created_at', 'o.updated_at'])
    .select(
      sql<number>`(select coalesce(sum(r.unit_price_cents * r.quantity), 0) from receipt_lines r where r.order_id = o.id)`.as('total_cents')
    )
    .orderBy('o.id')
    .execute()
  const lines = await db
    .selectFrom('receipt_lines as r')
    .innerJoin('orders as o', 'o.id', 'r.order_id')
    .innerJoin('items as i', 'i.id', 'r.item_id')
    .select(['r.id', 'o.public_id', 'r.item_id', 'i.title', 'r.quantity', 'r.unit_price_cents', 'r.created_at'])
    .orderBy('r.id')
    .execute()
  const history = await db
    .selectFrom('order_history as h')
    .innerJoin('orders as o', 'o.id', 'h.order_id')
    .select(['o.public_id', 'h.at', 'h.type', 'h.position', 'h.description', 'h.actor', 'h.by'])
    .orderBy('h.order_id')
    .orderBy('h.id')
    .execute()
  return [
    {
      file: 'orders.csv',
      columns: [
        'transaction_id',
        'transaction_code',
        'customer_id',
        'service_id',
        'position',
        'status',
        'pickup_at',
        'delivery_at',
        'note',
        'total_cents',
        'created_at',
        'updated_at'
      ],
      rows: orders.map((row) => [
        row.public_id,
        String(row.code),
        row.customer_id,
        row.service_id,
        row.position,
        row.status,
        isoTime(row.pickup_at),
        isoTime(row.delivery_at),
        row.note,
        Number(row.total_cents),
        isoTime(row.created_at),
        isoTime(row.updated_at)
      ])
    },
    {
      file: 'receipt_lines.csv',
      columns: ['receipt_id', 'transaction_id', 'item_id', 'title', 'quantity', 'unit_price_cents', 'amount_cents', 'created_at'],
      rows: lines.map((row) => [
        String(row.id),
        row.public_id,
        String(row.item_id),
        row.title,
        row.quantity,
        row.unit_price_cents,
        row.unit_price_cents * row.quantity,
        isoTime(row.created_at)
      ])
    },
    {
      file: 'history.csv',
      columns: ['transaction_id', 'at', 'type', 'position', 'description', 'actor', 'by'],
      rows: history.map((row) => [row.public_id, isoTime(row.at), row.type, row.position, row.description, row.actor, row.by])
    }
  ]
}
