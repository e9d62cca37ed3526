import Type, { type Static } from 'typebox'
import { Text, UNTRIMMED_TEXT_BOUND, WholeNumberOrDigits } from '../../platform/schemas.js'

export const SearchBody = Type.Object({
  // D-33 trims the query before D-70's 100 characters apply (search.service.ts). Tabs and line
  // breaks are white space like any other: trimmed, or words apart (a pasted name may hold them).
  query: Text(UNTRIMMED_TEXT_BOUND, {
    description:
      'Words, each matching the start of the first or the last name, ignoring case and accents ("jo sm" and "smi" find John Smith, "jose" José). Trimmed; empty is 400; at most 100 characters, counted in composed (NFC) form (D-33, D-70).'
  }),
  limit: Type.Optional(WholeNumberOrDigits(1, 100, 'At most this many hits, 1 to 100; default 20 (D-33).'))
})
export type SearchBody = Static<typeof SearchBody>

/** Spec "Customer search hit". */
const SearchHit = Type.Object({
  customer_id: Type.String(),
  customer_name: Type.String({ description: 'First and last name joined by one space (D-33).' }),
  customer_email: Type.String()
})

export const SearchResponse = Type.Object({
  customer: Type.Array(SearchHit, { description: 'Ordered by last name, then first name (ignoring case and accents), then id (D-33).' })
})
