import type { App } from '../../platform/app-types.js'
import { Ref } from '../../platform/components.js'
import { operation } from '../../platform/schemas.js'
import { BoardBody, BoardResponse } from './board.schemas.js'
import type { OrderBoard } from './board.service.js'

/** The console's board of a service: staff and admin only (an extension; D-12, D-18 list no board). */
export function boardRoutes(app: App, board: OrderBoard): void {
  app.post(
    '/v1/transaction/board',
    {
      schema: operation({
        id: 'getTransactionBoard',
        summary: 'Transaction board',
        description:
          "An extension for the staff console: every step of the service in order, each with the open transactions at it as cards (code, customer, pickup, when it reached the step, whether it is overdue, note, receipt total). A card is overdue when its transaction has been at the step longer than the step's `expected_minutes` (D-48). Cards are ordered overdue first (the longest past its expected time first), then by pickup time, then by code. `filter` narrows the cards; `open_count` is the number of cards of a step. Closed transactions are only counted (`closed_count`); list them with `/v1/transaction/list` (`status` `closed`, `service_name`, D-57). One read, however many transactions are open.",
        tags: ['transactions'],
        body: BoardBody,
        response: Ref(BoardResponse),
        problems: ['service_not_found']
      })
    },
    (request) => board.board(request.body)
  )
}
