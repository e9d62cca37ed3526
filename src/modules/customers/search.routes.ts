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
          'Each word of the query must match, ignoring case and accents, the start of some word of the first or the last name ("jo sm" and "smi" find John Smith, "berg" and "van der" Olga Van Der Berg, "zoe" Zoë, "jones" Bob Smith-Jones: a hyphen parts words too), or the start of the e-mail address ("olga.v" finds olga.v@example.com; a word is never matched inside the address), or, for a word of 3 or more digits only, any run of the phone\'s digits ("5550123" finds 2125550123; "555-0123" is not a number, and "55" matches names and e-mail only). Words may match different parts; the middle of a word never matches ("mith" does not find Smith). Each customer is answered once. Hits are ordered by last name, first name (ignoring case and accents, so Ölund sorts among the names starting with o) and id; at most `limit` (1 to 100, default 20) (D-33).',
        tags: ['customers'],
        body: SearchBody,
        response: Ref(SearchResponse),
        problems: []
      })
    },
    (request) => search.search(request.body)
  )
}
