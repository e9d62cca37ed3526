import type { App } from '../../platform/app-types.js'
import { Ref } from '../../platform/components.js'
import { callerOf } from '../../platform/idempotency.js'
import { operation } from '../../platform/schemas.js'
import type { OrdersList } from './orders.list.js'
import {
  CreateTransactionBody,
  CreateTransactionResponse,
  HistoryResponse,
  ListBody,
  ListResponse,
  MoveBody,
  TransactionParams,
  TransactionView,
  UpdateTransactionBody,
  UpdateTransactionResponse
} from './orders.schemas.js'
import type { OrdersService } from './orders.service.js'

const tags = ['transactions']

/** Placing, reading, updating and listing orders: customers (their own) and staff (D-12). */
export function orderRoutes(app: App, orders: OrdersService, list: OrdersList): void {
  app.post(
    '/v1/transaction/create',
    {
      schema: operation({
        id: 'createTransaction',
        summary: 'Create transaction',
        description:
          'Places an order for a service: step 1, `open`, a random 8-digit `transaction_code` (a number in this answer only), `total` `--`. Timestamps are whole seconds (number or digit text) between 2000-01-01 and 2100-01-01; delivery not before pickup (D-50). The note may be sent as `notes` (spec) or `note`. A customer may order only for themselves (403). Entering step 1 emits its events (D-60).',
        tags,
        body: CreateTransactionBody,
        response: Ref(CreateTransactionResponse),
        problems: ['customer_not_found', 'service_not_found', 'forbidden'],
        idempotent: true
      })
    },
    (request) => orders.create(request.body, callerOf(request))
  )

  app.post(
    '/v1/transaction/update',
    {
      schema: operation({
        id: 'updateTransaction',
        summary: 'Update transaction',
        description:
          "Changes the fields sent; others stay (D-53). A new `service_name` puts the transaction at that service's step 1 and emits its events, whatever its status (a closed one stays closed there); its receipt keeps every line, priced as copied, though lines of the old service's items cannot be added to again (409 `item_not_in_service`) and can still be removed. `status` closes or reopens it. Customers may change only `note`, `pickup_timestamp` and `delivery_timestamp` of their own open transactions (others: 403; closed: 409).",
        tags,
        body: UpdateTransactionBody,
        response: Ref(UpdateTransactionResponse),
        problems: ['transaction_not_found', 'service_not_found', 'transaction_closed', 'forbidden'],
        idempotent: true
      })
    },
    (request) => orders.update(request.body, callerOf(request))
  )

  app.post(
    '/v1/transaction/list',
    {
      schema: operation({
        id: 'listTransactions',
        summary: 'List transactions',
        description:
          'Full views, newest first, filtered by any of `customer_id`, `service_name`, `position_number`, `status`; `limit` 1 to 100 (default 20); pass `next_cursor` back as `cursor` for the next page (D-57). A customer sees only their own.',
        tags,
        body: ListBody,
        response: Ref(ListResponse),
        problems: []
      })
    },
    (request) => list.list(request.body, request.principal)
  )

  app.post(
    '/v1/transaction/:transaction_id',
    {
      schema: operation({
        id: 'getTransaction',
        summary: 'Get transaction',
        description:
          "The full view: the service at the transaction's step with its progress bar, the receipt (one line of nulls when empty) and the total. Another customer's transaction is 404, as a missing one.",
        tags,
        params: TransactionParams,
        response: Ref(TransactionView),
        problems: ['transaction_not_found']
      })
    },
    (request) => orders.get(request.params.transaction_id, request.principal)
  )

  app.post(
    '/v1/transaction/:transaction_id/history',
    {
      schema: operation({
        id: 'getTransactionHistory',
        summary: 'Transaction history',
        description:
          'What happened to the transaction, oldest first (D-56). A `tracked` entry (a step\'s `trak` event, actor `system`, `by` "") is written when the event is delivered, dated when its step was entered, and listed right after the entry of that step.',
        tags,
        params: TransactionParams,
        response: Ref(HistoryResponse),
        problems: ['transaction_not_found']
      })
    },
    (request) => orders.history(request.params.transaction_id, request.principal)
  )
}

/** Moving orders through their steps: staff only (D-12). */
export function moveRoutes(app: App, orders: OrdersService): void {
  app.post(
    '/v1/transaction/move',
    {
      schema: operation({
        id: 'moveTransaction',
        summary: 'Move transaction',
        description:
          "Moves an open transaction one step forward and emits the new step's events; at the last step it closes instead and stays there (D-55). `customer_id` must be the owner (else 404). An optional `position_number` is the step the caller believes the transaction is at: if it is not, 409 `position_changed` and nothing changes. A closed transaction is 409 `transaction_closed`. Send an `Idempotency-Key` so a retry never advances twice.",
        tags,
        body: MoveBody,
        response: Ref(TransactionView),
        problems: ['transaction_not_found', 'transaction_closed', 'position_changed'],
        idempotent: true
      })
    },
    (request) => orders.move(request.body, callerOf(request))
  )
}
