import Type, { type Static } from 'typebox'
import { Ref } from '../../platform/components.js'
import { Text, UNTRIMMED_TEXT_BOUND, WholeNumberOrDigits } from '../../platform/schemas.js'

export const SearchBody = Type.Object({
  // D-33 trims the query before D-70's 100 characters apply (search.service.ts). Tabs and line
  // breaks are white space like any other: trimmed, or words apart (a pasted name may hold them).
  query: Text(UNTRIMMED_TEXT_BOUND, {
    description:
      'Words, each matching the start of a word of the first or last name, the start of the e-mail, or (3 or more digits) the phone digits anywhere, ignoring case and accents ("jo sm" finds John Smith, "berg" Olga Van Der Berg, "jose" José, "olga.v" olga.v@example.com, "5550123" the phone 2125550123). Trimmed; empty is 400; at most 100 characters, counted in composed (NFC) form (D-33, D-70).',
    'x-doc-maxLength': 100
  }),
  limit: Type.Optional(WholeNumberOrDigits(1, 100, 'At most this many hits, 1 to 100; default 20 (D-33).'))
})
export type SearchBody = Static<typeof SearchBody>

/** Spec "Customer search hit". */
const SearchHit = Type.Object(
  {
    customer_id: Type.String({ maxLength: 64 }),
    customer_name: Type.String({ maxLength: 100, description: 'First and last name joined by one space (D-33).' }),
    customer_email: Type.String({ maxLength: 254 })
  },
  { $id: 'SearchHit', description: 'A customer found by a search (D-33).' }
)

export const SearchResponse = Type.Object(
  {
    customer: Type.Array(Ref(SearchHit), {
      description: 'Ordered by last name, then first name (ignoring case and accents), then id (D-33).'
    })
  },
  { $id: 'SearchResult' }
)

/** The named schemas of the search answer. */
export const SEARCH_SCHEMAS = [SearchHit, SearchResponse]
