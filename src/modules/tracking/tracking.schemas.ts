import Type from 'typebox'
import { PathKey } from '../../platform/schemas.js'
import { HISTORY_TYPES } from '../orders/orders.table.js'

// An id holding control characters names no transaction (the text rule, issue 8): PostgreSQL failed on NUL (500).
export const TransactionParams = Type.Object({ transaction_id: PathKey('transaction_not_found') })

/** The answer of the staff and customer operations: the link to hand to the customer. */
export const TrackingLinkResponse = Type.Object({
  tracking_url: Type.String({ description: '`PUBLIC_URL/track/<token>`; the token is 32 random bytes, base64url.' })
})

// Any token the router passes, of any length and any characters, is looked up by its hash: a
// malformed one is just unknown, 404 as a replaced one, not a 400 for a field the client did not
// write as one.
export const TokenParams = Type.Object({ token: Type.String() })

/**
 * What the public tracking page may know (issue 9): the service, the progress bar, the current
 * step and the timeline. Nothing about the customer, the receipt, the note or who did what.
 */
export const TrackingStatusResponse = Type.Object({
  service_name: Type.String(),
  position: Type.Object({
    position_number: Type.String({ description: 'Numeric text; the first step is 1.' }),
    position_description: Type.String()
  }),
  progress_bar: Type.Object({
    total_steps: Type.Integer(),
    percentage: Type.Number({ description: 'position / total_steps * 100, as in the service view (D-43).' })
  }),
  history: Type.Array(
    Type.Object({
      at: Type.String({ description: 'ISO-8601 UTC.' }),
      type: Type.String({
        enum: HISTORY_TYPES.filter((type) => !type.startsWith('receipt_')),
        description: 'Receipt changes are not shown.'
      }),
      position_number: Type.String(),
      description: Type.String()
    }),
    { description: 'Oldest first; like D-56 without actors and without receipt entries.' }
  )
})
