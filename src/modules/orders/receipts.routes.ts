import type { App } from '../../platform/app-types.js'
import { Ref } from '../../platform/components.js'
import { callerOf } from '../../platform/idempotency.js'
import { operation } from '../../platform/schemas.js'
import { AddToReceiptBody, RemoveFromReceiptBody, TransactionView } from './orders.schemas.js'
import type { ReceiptsService } from './receipts.service.js'

/** Receipt changes: customers (own, open) and staff (D-12). */
export function receiptRoutes(app: App, receipts: ReceiptsService): void {
  app.post(
    '/v1/receipt/add',
    {
      schema: operation({
        id: 'addToReceipt',
        summary: 'Add to receipt',
        description:
          "Puts an item of the transaction's service on its receipt; adding it again raises its quantity (optional `quantity` 1 to 999 adds that many), up to 99,999 on one line (beyond: 400 `validation_failed` on `/quantity`, nothing added). The unit price is copied when first added (D-54). Answers with the full view.",
        tags: ['transactions'],
        body: AddToReceiptBody,
        response: Ref(TransactionView),
        problems: ['transaction_not_found', 'item_not_found', 'transaction_closed', 'item_not_in_service'],
        idempotent: true
      })
    },
    (request) => receipts.add(request.body, callerOf(request))
  )

  app.post(
    '/v1/receipt/remove',
    {
      schema: operation({
        id: 'removeFromReceipt',
        summary: 'Remove from receipt',
        description:
          'Lowers the quantity of an item on the receipt by one, whatever else the body holds (there is no `quantity` here: each call takes one); the line goes at zero, and an emptied receipt is one line of nulls with price `0.00` (D-54). Answers with the full view.',
        tags: ['transactions'],
        body: RemoveFromReceiptBody,
        response: Ref(TransactionView),
        problems: ['transaction_not_found', 'item_not_on_receipt', 'transaction_closed'],
        idempotent: true
      })
    },
    (request) => receipts.remove(request.body, callerOf(request))
  )
}
