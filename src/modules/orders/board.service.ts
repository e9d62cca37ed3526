import type { Static } from 'typebox'
import type { Clock } from '../../common/clock.js'
import type { TimeFormatter } from '../../common/time-format.js'
import type { StatementCompiler } from '../../db/statement.js'
import { invalidField, problems } from '../../platform/problems.js'
import { serviceKeyOf } from '../catalogue/index.js'
import { boardFilter } from './board.filter.js'
import { type BoardRepository, boardRepository } from './board.repository.js'
import { type BoardBody, type BoardResponse, MAX_FILTER } from './board.schemas.js'
import { toBoardView } from './board.views.js'

const KEEP_EVERY_ORDER = () => true

/** The console's board of one service: its steps with their open orders, in one read (console extension, D-48). */
export class OrderBoard {
  private readonly repo: BoardRepository

  constructor(
    database: StatementCompiler,
    private readonly clock: Clock,
    private readonly time: TimeFormatter
  ) {
    this.repo = boardRepository(database)
  }

  async board(body: BoardBody): Promise<Static<typeof BoardResponse>> {
    const key = serviceKeyOf(body.service_name)
    const filter = body.filter?.trim() ?? ''
    // Counted composed, as names and the search query are (D-70).
    if ([...filter.normalize('NFC')].length > MAX_FILTER) throw invalidField('/filter', `must be at most ${MAX_FILTER} characters`)
    const rows = await this.repo.board(key)
    if (rows.length === 0) throw problems.serviceNotFound()
    return toBoardView(rows, {
      now: this.clock.now(),
      time: this.time,
      keeps: filter === '' ? KEEP_EVERY_ORDER : boardFilter(filter)
    })
  }
}
