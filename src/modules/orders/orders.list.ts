import type { Static } from 'typebox'
import type { TimeFormatter } from '../../common/time-format.js'
import type { StatementCompiler } from '../../db/statement.js'
import type { Principal } from '../../platform/principal.js'
import { invalidField } from '../../platform/problems.js'
import { serviceNameKey } from '../catalogue/index.js'
import { wholeInRange } from './order-rules.js'
import type { ListBody, ListResponse } from './orders.schemas.js'
import { toTransactionView } from './orders.views.js'
import { type ListFilters, type OrdersListRepository, ordersListRepository } from './orders-list.repository.js'

// A cursor names the last order of a page; opaque to clients, checked when read back.
function encodeCursor(id: number): string {
  return Buffer.from(`o:${id}`, 'utf8').toString('base64url')
}

function decodeCursor(cursor: string): number {
  const match = /^o:([0-9]{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'))
  if (match === null) throw invalidField('/cursor', 'is not a cursor this API gave out')
  return Number(match[1])
}

/** D-57: a page of orders, newest first, filtered as the caller may see them. */
export class OrdersList {
  private readonly orders: OrdersListRepository

  constructor(
    database: StatementCompiler,
    private readonly time: TimeFormatter
  ) {
    this.orders = ordersListRepository(database)
  }

  async list(body: ListBody, principal: Principal): Promise<Static<typeof ListResponse>> {
    const limit = body.limit === undefined ? 20 : wholeInRange(body.limit, '/limit', 1, 100)
    const filters: ListFilters = { limit: limit + 1 }
    if (principal.kind === 'customer') {
      // D-57: a customer sees only their own; a filter on another customer finds nothing.
      if (body.customer_id !== undefined && body.customer_id !== principal.customerId) return { transactions: [], next_cursor: null }
      filters.customerId = principal.customerId
    } else if (body.customer_id !== undefined) {
      filters.customerId = body.customer_id
    }
    if (body.service_name !== undefined) filters.serviceKey = serviceNameKey(body.service_name)
    if (body.position_number !== undefined) filters.position = wholeInRange(body.position_number, '/position_number', 1, 10_000)
    if (body.status !== undefined) filters.status = body.status
    if (body.cursor !== undefined) filters.before = decodeCursor(body.cursor)

    const rows = await this.orders.page(filters)
    // One more than the page was read to know whether another page exists.
    const page = rows.length > limit ? rows.slice(0, limit) : rows
    const views = page.map((row) => toTransactionView(row, this.time))
    return { transactions: views, next_cursor: rows.length > limit ? encodeCursor(page[limit - 1]!.id) : null }
  }
}
