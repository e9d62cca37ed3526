import type { Generated } from 'kysely'

/** `services`: the catalogue's multi-step services. `id` is internal; `public_id` is the wire's service_id. */
export interface ServicesTable {
  id: Generated<number>
  public_id: string
  name: string
  // Lower-cased name: unique, and what path lookups match (D-40).
  name_key: string
  image_title: string
  // Kept equal to the number of rows in service_steps, in the same database transaction.
  step_count: number
  created_at: number
}

/** `service_steps`: the numbered steps of a service. Rows keep their id when renumbered (D-42) or edited (D-47). */
export interface ServiceStepsTable {
  id: Generated<number>
  service_id: number
  position: number
  description: string
  button_title: string
  // Comma-separated event names in the order given (`email,text`); empty for none.
  events: string
  // Orders currently at this step, kept in the same database transaction as every move (D-44).
  order_count: number
  // An open order at the step longer than this is overdue (D-48); null: no expectation.
  expected_minutes: number | null
  // Raised whenever a text statistics show of the step changes (its description, its service's
  // name or image title, D-47): texts kept in memory are known stale by it (step-texts.ts).
  texts_version: Generated<number>
}

/** `items`: priced things that can be put on a receipt, per service (D-45). */
export interface ItemsTable {
  id: Generated<number>
  service_id: number
  title: string
  price_cents: number
  image_url: string
  group_name: string
  removed_at: number | null
  created_at: number
  updated_at: number
}
