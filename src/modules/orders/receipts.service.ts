import type { Static } from 'typebox'
import type { Clock } from '../../common/clock.js'
import type { TimeFormatter } from '../../common/time-format.js'
import type { Database } from '../../db/database.js'
import type { Caller, UseCaseRunner } from '../../platform/idempotency.js'
import { invalidField, problems } from '../../platform/problems.js'
import { assertVisible, authorOf, parseItemId, wholeInRange } from './order-rules.js'
import { type OrdersRepository, ordersRepository } from './orders.repository.js'
import type { AddToReceiptBody, RemoveFromReceiptBody, TransactionView } from './orders.schemas.js'
import { receiptLinesOf, toTransactionView } from './orders.views.js'
import { type ReceiptsRepository, receiptsRepository } from './receipts.repository.js'

// Keeps a line's amount far inside safe integers: 10,000,000 cents × 99,999.
const MAX_LINE_QUANTITY = 99_999

/** Items on an order's receipt (D-54); the answer is the full view with the receipt and total updated. */
export class ReceiptsService {
  private readonly orders: OrdersRepository
  private readonly receipts: ReceiptsRepository

  constructor(
    database: Database,
    private readonly useCases: UseCaseRunner,
    private readonly clock: Clock,
    private readonly time: TimeFormatter
  ) {
    this.orders = ordersRepository(database)
    this.receipts = receiptsRepository(database)
  }

  /**
   * Adds an item (or `quantity` of it) to an open order. The unit price is copied on first add;
   * a repeat raises the quantity. The order row is locked, so concurrent adds all count, and the
   * receipt read with the lock is the receipt until this commits: the answer is that receipt with
   * the line written (no read after the write).
   */
  async add(body: AddToReceiptBody, caller: Caller): Promise<Static<typeof TransactionView>> {
    const quantity = body.quantity === undefined ? 1 : wholeInRange(body.quantity, '/quantity', 1, 999)
    const itemId = parseItemId(body.item_id)
    return this.useCases.run(caller, async (tx) => {
      // The item is read with the order (one statement); an id that cannot be one reads no item.
      const order = await this.orders.lockForReceipt(tx, body.transaction_id, itemId ?? 0)
      if (order === undefined) throw problems.transactionNotFound()
      assertVisible(order.customer_id, caller.principal)
      if (order.status === 'closed') throw problems.transactionClosed()
      if (itemId === undefined || order.item_id === null) throw problems.itemNotFound()
      if (order.item_service_id !== order.service_row_id) throw problems.itemNotInService()
      const now = this.clock.now()
      const line = await this.receipts.add(
        tx,
        { orderId: order.id, itemId: order.item_id, unitPrice: order.item_price_cents!, quantity, now },
        {
          orderId: order.id,
          at: now,
          type: 'receipt_added',
          position: order.position,
          description: `Added ${quantity} × ${order.item_title!}`,
          ...authorOf(caller.principal)
        }
      )
      if (line.quantity > MAX_LINE_QUANTITY)
        throw invalidField('/quantity', `would make the line's quantity more than ${MAX_LINE_QUANTITY}`)
      const lines = receiptLinesOf(order)
      const index = lines.findIndex(([lineId]) => lineId === line.id)
      // A repeat keeps its line's unit price; a new line has the highest id yet, so it comes last.
      if (index >= 0) lines[index]![2] = line.quantity
      else lines.push([line.id, order.item_id, line.quantity, order.item_price_cents!, order.item_title!, order.item_image_url!])
      return toTransactionView(order, this.time, lines)
    })
  }

  /** Takes one of an item off an open order's receipt; the line goes at zero (D-54). */
  async remove(body: RemoveFromReceiptBody, caller: Caller): Promise<Static<typeof TransactionView>> {
    const itemId = parseItemId(body.item_id)
    return this.useCases.run(caller, async (tx) => {
      const order = await this.orders.lockForReceipt(tx, body.transaction_id, 0)
      if (order === undefined) throw problems.transactionNotFound()
      assertVisible(order.customer_id, caller.principal)
      if (order.status === 'closed') throw problems.transactionClosed()
      // The line is one of the receipt read with the lock (one per item, D-54).
      const lines = receiptLinesOf(order)
      const index = itemId === undefined ? -1 : lines.findIndex((line) => line[1] === itemId)
      if (index < 0) throw problems.itemNotOnReceipt()
      const line = lines[index]!
      const [lineId, , quantity, , title] = line
      await this.receipts.takeOne(tx, { id: lineId, quantity })
      await this.orders.addHistory(tx, {
        orderId: order.id,
        at: this.clock.now(),
        type: 'receipt_removed',
        position: order.position,
        description: `Removed 1 × ${title}`,
        ...authorOf(caller.principal)
      })
      if (quantity <= 1) lines.splice(index, 1)
      else line[2] = quantity - 1
      return toTransactionView(order, this.time, lines)
    })
  }
}
