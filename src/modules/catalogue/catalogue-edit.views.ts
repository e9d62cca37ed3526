import type { Static } from 'typebox'
import type { CatalogueRow } from './catalogue-edit.repository.js'
import type { CatalogueResponse, CatalogueService } from './catalogue-edit.schemas.js'
import { decodeEvents } from './events.js'

type Service = Static<typeof CatalogueService>

/** D-47: services in creation order, each with its steps in order; rows come ordered so. */
export function toCatalogueView(rows: readonly CatalogueRow[]): Static<typeof CatalogueResponse> {
  const services: Service[] = []
  let current: { rowId: number; service: Service } | undefined
  for (const row of rows) {
    if (current === undefined || current.rowId !== row.service_row_id) {
      current = {
        rowId: row.service_row_id,
        service: {
          service_id: row.service_id,
          service_name: row.service_name,
          image_title: row.image_title,
          created_at: new Date(row.created_at).toISOString(),
          steps: []
        }
      }
      services.push(current.service)
    }
    current.service.steps.push({
      position_number: String(row.position),
      description: row.description,
      button_title: row.button_title,
      events: decodeEvents(row.events).map((event) => ({ event })),
      expected_minutes: row.expected_minutes
    })
  }
  return { services }
}

/** One service's element of the list (its rows only). */
export function toCatalogueServiceView(rows: readonly CatalogueRow[]): Service {
  const service = toCatalogueView(rows).services[0]
  if (service === undefined) throw new Error('a service has at least one step')
  return service
}
