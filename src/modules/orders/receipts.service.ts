import type { Static } from 'typebox'
import type { Clock } from '../../common/clock.js'
import type { TimeFormatter } from '../../common/time-format.js'
import type { Database } from '../../db/database.js'
import type { Caller, Writes } from '../../platform/idempotency.js'
import { actorOf } from '../../platform/principal.js'
import { invalidField, problems } from '../../platform/problems.js'
import { assertVisible, parseItemId, wholeInRange } from './order-rules.js'
import type { AddToReceiptBody, RemoveFromReceiptBody, TransactionView } from './orders.schemas.js'
import { ordersRepository, type OrdersRepository } from './orders.repository.js'
import { toTransactionView } from './orders.views.js'
import { receiptsRepository, type ReceiptsRepository } from './receipts.repository.js'

// Keeps a line's amount far inside safe integers: 10,000,000 cents × 99,999.
const MAX_LINE_QUANTITY = 99_999

/** Items on an order's receipt (D-54); the answer is the full view with the receipt and total updated. */
export class ReceiptsService {
  private readonly orders: OrdersRepository
  private readonly receipts: ReceiptsRepository

  constructor(
    database: Database,
    private readonly writes: Writes,
    private readonly clock: Clock,
    private readonly time: TimeFormatter
  ) {
    this.orders = ordersRepository(database.db, database.dialect)
    this.receipts = receiptsRepository(database.db, database.dialect)
  }

  /**
   * Adds an item (or `quantity` of it) to an open order. The unit price is copied on first add;
   * a repeat raises the quantity. The order row is locked, so concurrent adds all count.
   */
  async add(body: AddToReceiptBody, caller: Caller): Promise<Static<typeof TransactionView>> {
    const quantity = body.quantity === undefined ? 1 : wholeInRange(body.quantity, '/quantity', 1, 999)
    const itemId = parseItemId(body.item_id)
    return this.writes.run(caller, async (trx) => {
      // The item is read with the order (one statement); an id that cannot be one reads no item.
      const order = await this.orders.lockWithItem(trx, body.transaction_id, itemId ?? 0)
      if (order === undefined) throw problems.transactionNotFound()
      assertVisible(order.customer_id, caller.principal)
      if (order.status === 'closed') throw problems.transactionClosed()
      if (itemId === undefined || order.item_id === null) throw problems.itemNotFound()
      if (order.item_service_id !== order.service_id) throw problems.itemNotInService()
      const now = this.clock.now()
      const total = await this.receipts.add(
        trx,
        { orderId: order.id, itemId: order.item_id, unitPrice: order.item_price_cents!, quantity, now },
        {
          orderId: order.id,
          at: now,
          type: 'receipt_added',
          position: order.position,
          description: `Added ${quantity} × ${order.item_title!}`,
          actor: actorOf(caller.principal)
        }
      )
      if (total > MAX_LINE_QUANTITY) throw invalidField('/quantity', `would make the line's quantity more than ${MAX_LINE_QUANTITY}`)
      return toTransactionView(await this.orders.lockedFullView(trx, order.public_id), this.time)
    })
  }

  /** Takes one of an item off an open order's receipt; the line goes at zero (D-54). */
  async remove(body: RemoveFromReceiptBody, caller: Caller): Promise<Static<typeof TransactionView>> {
    const itemId = parseItemId(body.item_id)
    return this.writes.run(caller, async (trx) => {
      const order = await this.orders.lock(trx, body.transaction_id)
      if (order === undefined) throw problems.transactionNotFound()
      assertVisible(order.customer_id, caller.principal)
      if (order.status === 'closed') throw problems.transactionClosed()
      const line = itemId === undefined ? undefined : await this.receipts.line(trx, order.id, itemId)
      if (line === undefined) throw problems.itemNotOnReceipt()
      await this.receipts.takeOne(trx, line)
      await this.orders.addHistory(trx, {
        orderId: order.id,
        at: this.clock.now(),
        type: 'receipt_removed',
        position: order.position,
        description: `Removed 1 × ${line.title}`,
        actor: actorOf(caller.principal)
      })
      return toTransactionView(await this.orders.lockedFullView(trx, order.public_id), this.time)
    })
  }
}
