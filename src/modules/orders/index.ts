import { TimeFormatter } from '../../common/time-format.js'
import type { Config } from '../../config.js'
import type { AppContext } from '../../platform/app-context.js'
import type { App } from '../../platform/app-types.js'
import { callersScope } from '../../platform/callers-scope.js'
import { useSchemas } from '../../platform/components.js'
import { boardRoutes } from './board.routes.js'
import { BOARD_SCHEMAS } from './board.schemas.js'
import { OrderBoard } from './board.service.js'
import { OrdersList } from './orders.list.js'
import { moveRoutes, orderRoutes } from './orders.routes.js'
import { ORDER_SCHEMAS } from './orders.schemas.js'
import { OrdersService } from './orders.service.js'
import { receiptRoutes } from './receipts.routes.js'
import { ReceiptsService } from './receipts.service.js'

export { FIELD_CHANGE_DESCRIPTIONS } from './field-changes.js'
export { assertVisible } from './order-rules.js'
export { type TrackedEntry, trackedHistoryInsert } from './order-writes.repository.js'
export { exportOrders } from './orders.export.repository.js'
export { HISTORY_TYPES, type HistoryType } from './orders.table.js'

/** What the orders module uses of the app context. */
interface OrdersDeps extends Pick<AppContext, 'database' | 'useCases' | 'clock' | 'auth' | 'drawTransactionCode'> {
  readonly config: Pick<Config, 'timeZone'>
}

/** Orders (the wire's transactions) and receipts. Who may call what is decided here (D-12). */
export function ordersModule(context: OrdersDeps) {
  const time = new TimeFormatter(context.config.timeZone)
  const orders = new OrdersService(context.database, context.useCases, context.clock, time, context.drawTransactionCode)
  const receipts = new ReceiptsService(context.database, context.useCases, context.clock, time)
  const list = new OrdersList(context.database, time)
  const board = new OrderBoard(context.database, context.clock, time)
  return async (app: App): Promise<void> => {
    // The named schemas its answers refer to, for every scope below (platform/schemas.ts `useSchemas`).
    useSchemas(app, [...ORDER_SCHEMAS, ...BOARD_SCHEMAS])
    // Customers (their own transactions, checked by the services) and staff; not app keys.
    await app.register(
      callersScope(context.auth, ['customer', 'staff'], (scope) => {
        orderRoutes(scope, orders, list)
        receiptRoutes(scope, receipts)
      })
    )
    // Staff and admin only.
    await app.register(
      callersScope(context.auth, ['staff'], (staff) => {
        moveRoutes(staff, orders)
        boardRoutes(staff, board)
      })
    )
  }
}
