import type { App } from '../../platform/app-types.js'
import { Ref } from '../../platform/components.js'
import { operation } from '../../platform/schemas.js'
import { ListCustomersBody, ListCustomersResponse } from './list.schemas.js'
import type { CustomerListService } from './list.service.js'

/**
 * Browsing customers page by page, for the console: staff and admin only, like search (D-12). A
 * literal path segment, so it is never taken for a customer id (D-30: ids never equal one).
 */
export function customerListRoutes(app: App, list: CustomerListService): void {
  app.post(
    '/v1/customer/list',
    {
      schema: operation({
        id: 'listCustomers',
        summary: 'List customers',
        description:
          'Every customer, page by page: ordered by last name, then first name (ignoring case and accents), then id, as search orders its hits (D-33). At most `limit` (1 to 100, default 20) a page; `next_cursor` (opaque, null on the last page) as `cursor` gives the next. A cursor this API did not give out is 400 `validation_failed`. An extension of the API for the console, not in the spec; staff and admin only, as search (D-12).',
        tags: ['customers'],
        body: ListCustomersBody,
        response: Ref(ListCustomersResponse),
        problems: []
      })
    },
    (request) => list.list(request.body)
  )
}
