import type { Static } from 'typebox'
import type { ItemResponse, ItemsResponse } from './items.schemas.js'

/** The columns of an item its answer is made of. */
export interface ItemRow {
  id: number
  title: string
  image_url: string
  price_cents: number
}

/** The answer of the item operations (D-45). */
export function toItemView(row: ItemRow): Static<typeof ItemResponse> {
  return {
    item_id: String(row.id),
    title: row.title,
    image_url: row.image_url,
    price: String(row.price_cents)
  }
}

/** Rows of one service's visible items by id; a service without items gives one row of nulls. */
export interface ServiceItemRow {
  service_name: string
  id: number | null
  title: string | null
  image_url: string | null
  price_cents: number | null
  group_name: string | null
}

/** Spec "Get items": items grouped, groups in order of their first item (D-46). */
export function toItemsView(rows: readonly ServiceItemRow[]): Static<typeof ItemsResponse> {
  const groups = new Map<string, Static<typeof ItemsResponse>['item_group'][number]>()
  let count = 0
  for (const row of rows) {
    if (row.id === null) continue
    count++
    const name = row.group_name!
    let group = groups.get(name)
    if (group === undefined) {
      group = { group: name, item: [] }
      groups.set(name, group)
    }
    group.item.push({ item_id: String(row.id), title: row.title!, image_url: row.image_url!, price: String(row.price_cents) })
  }
  return { item: { item_count: count, service_name: rows[0]!.service_name }, item_group: [...groups.values()] }
}
