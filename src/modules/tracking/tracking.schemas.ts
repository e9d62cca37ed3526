import Type from 'typebox'
import { Instant, Ref } from '../../platform/components.js'
import { PathKey } from '../../platform/schemas.js'
import { ProgressBar } from '../catalogue/index.js'
import { HISTORY_TYPES } from '../orders/index.js'

// An id holding control characters names no transaction (the text rule): PostgreSQL failed on NUL (500).
export const TransactionParams = Type.Object({
  transaction_id: PathKey('transaction_not_found', { description: 'The transaction id.', 'x-doc-maxLength': 64 })
})

// 32 random bytes in base64url, without padding.
const TOKEN_PATTERN = '[A-Za-z0-9_-]{43}'

/** The answer of the staff and customer operations: the link to hand to the customer. */
export const TrackingLinkResponse = Type.Object(
  {
    tracking_url: Type.String({
      pattern: `/track/${TOKEN_PATTERN}$`,
      description: '`PUBLIC_URL/track/<token>`; the token is 32 random bytes, base64url.'
    })
  },
  { $id: 'TrackingLink' }
)

// Any token the router passes, of any length and any characters, is looked up by its hash: a
// malformed one is just unknown, 404 as a replaced one, not a 400 for a field the client did not
// write as one. The document states the form tokens have.
export const TokenParams = Type.Object({
  token: Type.String({ description: 'The token of a tracking link.', 'x-doc-pattern': `^${TOKEN_PATTERN}$` })
})

// The D-56 entries the page shows (tracking.repository.ts): the journey, nothing the shop did inside.
const JOURNEY = HISTORY_TYPES.filter((type) => ['created', 'moved', 'updated', 'closed', 'reopened'].includes(type))

const TrackingHistoryEntry = Type.Object(
  {
    at: Instant(),
    type: Type.String({
      enum: JOURNEY,
      description:
        '`created`: the order was placed; `moved`: it reached the step; `updated`: a change of service put it at the step (D-53); `closed`: it was completed; `reopened`: the shop opened it again.'
    }),
    position_number: Type.String({ pattern: '^[0-9]+$' }),
    description: Type.String()
  },
  { $id: 'TrackingHistoryEntry' }
)

/**
 * What the public tracking page may know: the service, the progress bar, the current
 * step and the timeline. Nothing about the customer, the receipt, the note or who did what.
 */
export const TrackingStatusResponse = Type.Object(
  {
    service_name: Type.String({ maxLength: 100 }),
    position: Type.Object({
      position_number: Type.String({ pattern: '^[1-9][0-9]*$', description: 'Numeric text; the first step is 1.' }),
      position_description: Type.String({ maxLength: 500 })
    }),
    progress_bar: Ref(ProgressBar),
    history: Type.Array(Ref(TrackingHistoryEntry), {
      description:
        "The customer's journey, oldest first: placed, each step reached, closed and reopened. Like D-56 without actors, and without note or date edits, receipt changes or `tracked` entries (which repeat the step they announce)."
    })
  },
  { $id: 'TrackingStatus', description: 'What the tracking page shows (issue 9).' }
)

/** The named schemas of the tracking answers. */
export const TRACKING_SCHEMAS = [TrackingLinkResponse, ProgressBar, TrackingHistoryEntry, TrackingStatusResponse]
