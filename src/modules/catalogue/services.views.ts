import type { Static } from 'typebox'
import { decodeEvents } from './events.js'
import type { ServiceView, StatsResponse } from './services.schemas.js'

/** The columns a service view is made from; the orders module selects the same ones. */
export interface ServiceStepRow {
  service_id: string
  service_name: string
  step_count: number
  position: number
  description: string
  button_title: string
  events: string
}

/** Spec "Service view": the service at one step, with its progress bar (D-43). */
export function toServiceView(row: ServiceStepRow): Static<typeof ServiceView> {
  return {
    service_id: row.service_id,
    service_name: row.service_name,
    position: {
      position_number: String(row.position),
      position_description: row.description,
      button_title: row.button_title,
      events: decodeEvents(row.events).map((event) => ({ event }))
    },
    progress_bar: {
      total_steps: row.step_count,
      // D-43: exactly this expression, so 1 of 3 is 33.33333333333333.
      percentage: (row.position / row.step_count) * 100
    }
  }
}

/** One row per step of every service, services in creation order, steps in order. */
export interface StatsRow {
  service_id: number
  service_name: string
  image_title: string
  position: number
  description: string
  order_count: number
}

type StatsEntry = Static<typeof StatsResponse>['service_stats'][number]['service'][number]

/** Spec "Service statistics entry" per service: 7 fields on the first entry, 4 on the rest (D-44). */
export function toStatsView(rows: readonly StatsRow[]): Static<typeof StatsResponse> {
  const services: { service: StatsEntry[] }[] = []
  let index = 0
  while (index < rows.length) {
    const first = rows[index]!
    let end = index
    let total = 0
    while (end < rows.length && rows[end]!.service_id === first.service_id) total += rows[end++]!.order_count
    const entries: StatsEntry[] = []
    for (let i = index; i < end; i++) {
      const row = rows[i]!
      const shade = row.position % 2 === 1 ? 'd' : 'l'
      entries.push(
        i === index
          ? {
              service_name: row.service_name,
              image_title: row.image_title,
              shade,
              position_number: String(row.position),
              description: row.description,
              position_count: row.order_count,
              total_orders: total
            }
          : { shade, position_number: String(row.position), description: row.description, position_count: row.order_count }
      )
    }
    services.push({ service: entries })
    index = end
  }
  return { service_stats: services }
}
