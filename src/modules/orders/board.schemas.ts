import Type, { type Static } from 'typebox'
import { Instant, Ref } from '../../platform/components.js'
import { Text, UNTRIMMED_TEXT_BOUND } from '../../platform/schemas.js'
import { ServiceKey } from '../catalogue/index.js'
import { DATE_TIME, Money } from './orders.schemas.js'

/** D-70: characters of the trimmed filter. */
export const MAX_FILTER = 100

export const BoardBody = Type.Object({
  service_name: ServiceKey(),
  // Trimmed before its 100 characters apply (board.service.ts), as the search query is (D-33, D-70).
  filter: Type.Optional(
    Text(UNTRIMMED_TEXT_BOUND, {
      description:
        "Keeps the transactions whose code starts with it (digits), or whose customer's e-mail or first or last name words start with it (each word of it starting some name word), ignoring case and accents. Trimmed; empty keeps every one; at most 100 characters.",
      'x-doc-maxLength': MAX_FILTER
    })
  )
})
export type BoardBody = Static<typeof BoardBody>

/** An open transaction on the board: its card. */
const BoardCard = Type.Object(
  {
    transaction_id: Type.String({ maxLength: 64 }),
    transaction_code: Type.String({ pattern: '^[0-9]{8}$', description: 'Eight digits (D-50).' }),
    customer_id: Type.String({ maxLength: 64 }),
    customer_name: Type.String({ maxLength: 100, description: 'First and last name joined by one space (D-33).' }),
    pickup_date_time: DATE_TIME(),
    pickup_at: Instant('The pickup time, ISO-8601 UTC.'),
    entered_at: Instant('When the transaction reached this step, ISO-8601 UTC.'),
    overdue: Type.Boolean({ description: "At this step longer than the step's `expected_minutes` (D-48); false when the step has none." }),
    note: Type.String({ maxLength: 1000 }),
    total: Money('The receipt total, as the full view writes it: two decimals, `0.00` for an empty receipt (D-54).')
  },
  { $id: 'BoardCard' }
)

const BoardStep = Type.Object(
  {
    position_number: Type.String({ pattern: '^[1-9][0-9]*$', description: 'Numeric text; the first step is 1.' }),
    description: Type.String({ maxLength: 500 }),
    button_title: Type.String({ maxLength: 500 }),
    expected_minutes: Type.Union([Type.Integer({ minimum: 1, maximum: 43_200 }), Type.Null()], {
      description: 'Minutes a transaction is expected at the step; null for none (D-48).'
    }),
    open_count: Type.Integer({ minimum: 0, description: 'Open transactions at the step that the filter keeps: the length of `orders`.' }),
    orders: Type.Array(Ref(BoardCard), {
      description: 'Overdue first (the longest past its expected time first), then by pickup time, then by code.'
    })
  },
  { $id: 'BoardStep' }
)

export const BoardResponse = Type.Object(
  {
    service_name: Type.String({ maxLength: 100 }),
    steps: Type.Array(Ref(BoardStep), { description: 'Every step of the service, in order.' }),
    closed_count: Type.Integer({
      minimum: 0,
      description:
        'Closed transactions of the service, whatever the filter; list them with `/v1/transaction/list` (`status` `closed`, `service_name`, D-57).'
    })
  },
  { $id: 'Board' }
)

/** The named schemas of the board answer. */
export const BOARD_SCHEMAS = [BoardCard, BoardStep, BoardResponse]
