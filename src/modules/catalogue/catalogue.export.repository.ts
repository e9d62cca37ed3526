import type { Kysely } from 'kysely'
import { type ExportTable, isoTime } from '../../common/export-table.js'
import type { DB } from '../../db/schema.js'

/**
 * services.csv, steps.csv and items.csv (D-94), keyed by the wire's ids: service_id is the public
 * id, item_id the item's number as the item answers give it (items.views.ts).
 */
export async function exportCatalogue(db: Kysely<DB>): Promise<ExportTable[]> {
  const services = await db
    .selectFrom('services')
    .select(['public_id', 'name', 'image_title', 'step_count', 'created_at'])
    .orderBy('id')
    .execute()
  const steps = await db
    .selectFrom('service_steps as st')
    .innerJoin('services as s', 's.id', 'st.service_id')
    .select(['s.public_id', 'st.position', 'st.description', 'st.button_title', 'st.events', 'st.order_count'])
    .orderBy('s.id')
    .orderBy('st.position')
    .execute()
  const items = await db
    .selectFrom('items as i')
    .innerJoin('services as s', 's.id', 'i.service_id')
    .select([
      'i.id',
      's.public_id',
      'i.title',
      'i.price_cents',
      'i.image_url',
      'i.group_name',
      'i.removed_at',
      'i.created_at',
      'i.updated_at'
    ])
    .orderBy('i.id')
    .execute()
  return [
    {
      file: 'services.csv',
      columns: ['service_id', 'name', 'image_title', 'step_count', 'created_at'],
      rows: services.map((row) => [row.public_id, row.name, row.image_title, row.step_count, isoTime(row.created_at)])
    },
    {
      file: 'steps.csv',
      columns: ['service_id', 'position', 'description', 'button_title', 'events', 'order_count'],
      rows: steps.map((row) => [row.public_id, row.position, row.description, row.button_title, row.events, row.order_count])
    },
    {
      file: 'items.csv',
      columns: ['item_id', 'service_id', 'title', 'price_cents', 'image_url', 'group_name', 'removed_at', 'created_at', 'updated_at'],
      rows: items.map((row) => [
        String(row.id),
        row.public_id,
        row.title,
        row.price_cents,
        row.image_url,
        row.group_name,
        isoTime(row.removed_at),
        isoTime(row.created_at),
        isoTime(row.updated_at)
      ])
    }
  ]
}
