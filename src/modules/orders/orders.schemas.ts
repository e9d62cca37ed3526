import Type, { type Static } from 'typebox'
import { Constant, Instant, Ref } from '../../platform/components.js'
import { Identifier, ItemKey, Line, PathKey, Text, WholeNumberOrDigits } from '../../platform/schemas.js'
import { SERVICE_VIEW_SCHEMAS, ServiceKey, ServiceView } from '../catalogue/index.js'
import { ACTORS, HISTORY_TYPES, ORDER_STATUSES, type OrderStatus } from './orders.table.js'

// D-50: whole seconds between 2000-01-01 and 2100-01-01.
export const MIN_TIMESTAMP = 946_684_800
export const MAX_TIMESTAMP = 4_102_444_800

const Timestamp = (description: string) => WholeNumberOrDigits(MIN_TIMESTAMP, MAX_TIMESTAMP, description)

// D-51: how answers write dates and times, in TIME_ZONE.
const DATE = (description = '`YYYY-MM-DD` in TIME_ZONE (D-51).') =>
  Type.String({ pattern: '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$', description })
const TIME = (description = '`HH:MM:SS`, 24-hour, in TIME_ZONE (D-51).') =>
  Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$', description })
const SHORT_TIME = (description = '`HH:MM`, 24-hour, in TIME_ZONE (D-51).') =>
  Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description })
export const DATE_TIME = (description = '`Mon DD, YYYY @ hh:mm AM` in TIME_ZONE (D-51).') =>
  Type.String({
    pattern: '^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (0[1-9]|[12][0-9]|3[01]), [0-9]{4} @ (0[1-9]|1[0-2]):[0-5][0-9] (AM|PM)$',
    description
  })
export const Money = (description: string) => Type.String({ pattern: '^[0-9]+\\.[0-9]{2}$', description })
// Transaction ids are opaque (D-30); one longer than this names no transaction.
const ID_MAX = 64
const Note = Text(1000)
const Status = Type.Unsafe<OrderStatus>({ type: 'string', enum: [...ORDER_STATUSES], description: '`open` or `closed`.' })

export const CreateTransactionBody = Type.Object({
  customer_id: Identifier('customer_not_found', 'The customer placing the order; a customer may name only themselves (D-12).'),
  service_name: ServiceKey(),
  pickup_timestamp: Timestamp('Unix time in whole seconds, as a number or digit text, 2000-01-01 to 2100-01-01 (D-50).'),
  delivery_timestamp: Timestamp('Unix time in whole seconds; not before pickup (D-50).'),
  notes: Type.Optional(Text(1000, { description: 'Optional note; answered as `note`.' })),
  note: Type.Optional(Text(1000, { description: 'Accepted as another name for `notes` (400 if both are sent and differ).' }))
})
export type CreateTransactionBody = Static<typeof CreateTransactionBody>

/** The create answer (spec): `transaction_code` a number, `total` the text `--`. */
export const CreateTransactionResponse = Type.Object(
  {
    transaction_id: Type.String({ maxLength: ID_MAX }),
    transaction_code: Type.Integer({
      minimum: 10_000_000,
      maximum: 99_999_999,
      description: 'Eight digits (D-50); a number here, text in every other response.'
    }),
    service_name: Type.String({ maxLength: 100 }),
    pickup_date: DATE(),
    pickup_time: SHORT_TIME(),
    delivery_date: DATE(),
    delivery_time: SHORT_TIME(),
    note: Type.String({ maxLength: 1000 }),
    status: Constant('open', 'A new transaction is open.'),
    total: Constant('--', 'The text `--`.')
  },
  { $id: 'TransactionCreated', description: 'A new transaction, in the short view create answers with (spec).' }
)

export const UpdateTransactionBody = Type.Object({
  transaction_id: Identifier('transaction_not_found'),
  service_name: Type.Optional(
    ServiceKey('Moves the transaction to step 1 of this service (D-53); trimmed and matched ignoring case (D-40).')
  ),
  pickup_timestamp: Type.Optional(Timestamp('Unix time in whole seconds.')),
  delivery_timestamp: Type.Optional(Timestamp('Unix time in whole seconds; not before pickup.')),
  note: Type.Optional(Note),
  notes: Type.Optional(
    Text(1000, { description: 'Accepted as another name for `note`, the name create takes (400 if both are sent and differ).' })
  ),
  status: Type.Optional(Status)
})
export type UpdateTransactionBody = Static<typeof UpdateTransactionBody>

/** The update answer (spec), with `transaction_id` as D-53 allows. */
export const UpdateTransactionResponse = Type.Object(
  {
    transaction_id: Type.String({ maxLength: ID_MAX }),
    service_name: Type.String({ maxLength: 100 }),
    pickup_date: DATE(),
    pickup_time: SHORT_TIME(),
    delivery_date: DATE(),
    delivery_time: SHORT_TIME(),
    note: Type.String({ maxLength: 1000 }),
    status: Type.String({ enum: [...ORDER_STATUSES] })
  },
  { $id: 'TransactionUpdated', description: 'The transaction as update answers it: a short view (spec, D-53).' }
)

// A receipt's fields are text or null (an empty receipt); the serialiser picks the branch by value, so no rule is added inside them.
const NullableString = Type.Union([Type.String(), Type.Null()])

/** Spec "Receipt line"; an empty receipt is one line of nulls with price `0.00`. */
const ReceiptLine = Type.Object(
  {
    receipt_id: NullableString,
    item_id: NullableString,
    title: NullableString,
    image_url: NullableString,
    price: Money('Unit price × quantity in major units, two decimals (D-54).'),
    quantity: NullableString
  },
  { $id: 'ReceiptLine', description: 'One line of a receipt; an empty receipt is one line of nulls with price `0.00` (spec).' }
)

/** Spec "Transaction (full view)". */
export const TransactionView = Type.Object(
  {
    transaction_id: Type.String({ maxLength: ID_MAX }),
    transaction_code: Type.String({ pattern: '^[0-9]{8}$', description: 'Eight digits (D-50).' }),
    customer_id: Type.String({ maxLength: 64 }),
    pickup_date_time: DATE_TIME(),
    pickup_date: DATE(),
    pickup_time: TIME(),
    delivery_date_time: DATE_TIME(),
    delivery_date: DATE(),
    delivery_time: TIME(),
    note: Type.String({ maxLength: 1000 }),
    service: Ref(ServiceView),
    status: Type.String({ enum: [...ORDER_STATUSES] }),
    receipt: Type.Array(Ref(ReceiptLine)),
    total: Money('Two decimals; `0.00` for an empty receipt.')
  },
  { $id: 'Transaction', description: 'A transaction in the full view (spec), its service at its current step (D-51).' }
)

export const TransactionParams = Type.Object({
  transaction_id: PathKey('transaction_not_found', { description: 'The transaction id.', 'x-doc-maxLength': ID_MAX })
})

const ITEM_ID_TEXT = 'Numeric text (a number is accepted too).'
const ItemId = ItemKey(ITEM_ID_TEXT)

export const AddToReceiptBody = Type.Object({
  transaction_id: Identifier('transaction_not_found'),
  item_id: ItemId,
  quantity: Type.Optional(WholeNumberOrDigits(1, 999, 'How many to add, 1 to 999; default 1 (D-54).'))
})
export type AddToReceiptBody = Static<typeof AddToReceiptBody>

// An id that names no item cannot be on the receipt: the same 404 as any other id not on it.
export const RemoveFromReceiptBody = Type.Object({
  transaction_id: Identifier('transaction_not_found'),
  item_id: ItemKey(ITEM_ID_TEXT, 'item_not_on_receipt')
})
export type RemoveFromReceiptBody = Static<typeof RemoveFromReceiptBody>

export const MoveBody = Type.Object({
  // D-55: a customer_id that is not the owner's is 404 transaction_not_found.
  customer_id: Identifier('transaction_not_found', "The transaction's owner (D-55)."),
  transaction_id: Identifier('transaction_not_found'),
  position_number: Type.Optional(
    WholeNumberOrDigits(1, 10_000, 'The step the caller believes the transaction is at; 409 `position_changed` if it is not (D-55).')
  )
})
export type MoveBody = Static<typeof MoveBody>

const HistoryEntry = Type.Object(
  {
    at: Instant(),
    type: Type.String({ enum: [...HISTORY_TYPES] }),
    position_number: Type.String({ pattern: '^[0-9]+$' }),
    description: Type.String(),
    actor: Type.String({ enum: [...ACTORS] }),
    by: Type.String({
      description:
        'Who did it (D-17): the staff member\'s name for a console session, the API key\'s name for a key, "" for customers and the system.'
    })
  },
  { $id: 'HistoryEntry' }
)

export const HistoryResponse = Type.Object(
  {
    transaction_id: Type.String({ maxLength: ID_MAX }),
    history: Type.Array(Ref(HistoryEntry), { description: 'Oldest first (D-56).' })
  },
  { $id: 'TransactionHistory' }
)

export const ListBody = Type.Object({
  customer_id: Type.Optional(Line(64, { minLength: 1, description: 'Only transactions of this customer.' })),
  service_name: Type.Optional(Line(100, { description: 'Only transactions of this service (name matched ignoring case).' })),
  position_number: Type.Optional(WholeNumberOrDigits(1, 10_000, 'Transactions at this step.')),
  status: Type.Optional(Status),
  limit: Type.Optional(WholeNumberOrDigits(1, 100, '1 to 100, default 20.')),
  cursor: Type.Optional(Line(100, { description: '`next_cursor` of the previous page.' }))
})
export type ListBody = Static<typeof ListBody>

export const ListResponse = Type.Object(
  {
    transactions: Type.Array(Ref(TransactionView), { description: 'Newest first (D-57).' }),
    next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page; null on the last.' })
  },
  { $id: 'TransactionPage' }
)

/** The named schemas of the transaction answers (the full view embeds the service view). */
const TRANSACTION_SCHEMAS = [...SERVICE_VIEW_SCHEMAS, ReceiptLine, TransactionView]

/** The named schemas of the order operations' answers. */
export const ORDER_SCHEMAS = [
  ...TRANSACTION_SCHEMAS,
  CreateTransactionResponse,
  UpdateTransactionResponse,
  HistoryEntry,
  HistoryResponse,
  ListResponse
]
