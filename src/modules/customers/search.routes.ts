import type { App } from '../../platform/app-types.js'
import { Ref } from '../../platform/components.js'
import { operation } from '../../platform/schemas.js'
import { SearchBody, SearchResponse } from './search.schemas.js'
import type { SearchService } from './search.service.js'

/** Searching customers: staff only (D-12). */
export function customerSearchRoutes(app: App, search: SearchService): void {
  app.post(
    '/v1/customer/search',
    {
      schema: operation({
        id: 'searchCustomers',
        summary: 'Search customers',
        description:
          'Each word of the query must match the start of the first or the last name, ignoring case and accents: "jo sm" and "smi" both find John Smith, "jose" finds José, "strasse" Straße, "ismail" İsmail. A name matches by its start only, so no name matches two words of which neither starts the other, and a query of three such words finds nobody. Hits are ordered by last name, first name (ignoring case and accents, so Ölund sorts among the names starting with o) and id; at most `limit` (1 to 100, default 20) (D-33).',
        tags: ['customers'],
        body: SearchBody,
        response: Ref(SearchResponse),
        problems: []
      })
    },
    (request) => search.search(request.body)
  )
}
