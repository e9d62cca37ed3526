import type { StatementCompiler, Tx } from '../../db/statement.js'
import { RetryUseCase } from '../../db/unit-of-work.js'
import { decodeEvents } from '../catalogue/index.js'
import { type OutboxMessage, type OutboxWriter, outboxRowParams } from '../notifications/index.js'
import type { HistoryParams, NewOrderParams } from './order-writes.repository.js'
import type { OrdersRepository } from './orders.repository.js'
import type { Author, HistoryType } from './orders.table.js'
import type { StepTarget } from './orders-full-view.repository.js'
import { ORDER_CODE_CONSTRAINT, stepEntryStatements } from './step-entry.repository.js'

/** The order entering a step, as the history and its events describe it. */
export interface StepEntry {
  order: { id: number; publicId: string; code: number; customerId: string }
  service: { name: string; stepCount: number }
  step: StepTarget
  type: Extract<HistoryType, 'created' | 'moved' | 'updated'>
  /** Who did it (D-17, D-56). */
  author: Author
  now: number
  /** A move: the order's row is set to the step (open) here too, not by the caller. */
  setsStep?: boolean
  /** A move from this step (its row id): its counter and the entered step's move here too (D-44). */
  countsMoveFrom?: number
}

/** A new order entering its service's first step: what `create` needs beside the order's row. */
export type NewOrderEntry = Pick<StepEntry, 'service' | 'step' | 'author'>

/**
 * Everything that happens when an order enters a step, in the caller's database transaction: a
 * history entry (D-56) and one outbox row per event of the step (D-60), so nothing is recorded
 * or announced for a change that rolls back. Counters are the caller's (they depend on where
 * the order came from), but for a move's (`countsMoveFrom`) and a new order's (`create`).
 *
 * On PostgreSQL these writes (and a move's update of the order and its counters; a new order's
 * row and counter) are one statement, with the order row, the counters and the history entry
 * written in WITH: one round trip instead of up to five, which is most of what a write costs
 * there. SQLite runs them one by one; its statements are calls into the same process.
 */
export function stepEntryWriter(database: StatementCompiler, orders: OrdersRepository, outbox: OutboxWriter, drawCode: () => number) {
  const { dialect } = database
  const statements = dialect.supportsWritesInWith ? stepEntryStatements(database) : undefined

  const writer = {
    /**
     * Places a new order at its service's first step, drawing its code (D-50), with its step's
     * counter and everything `record` writes for it; answers the code. A code already taken is
     * drawn again: on SQLite by the INSERT that yields no row, on PostgreSQL (where the order, its
     * counter, history and messages are one statement) by running the whole use case again
     * (`RetryUseCase`).
     */
    async create(tx: Tx, order: Omit<NewOrderParams, 'code'>, entry: NewOrderEntry): Promise<number> {
      const stepEntry = (id: number, code: number): StepEntry => ({
        ...entry,
        order: { id, publicId: order.publicId, code, customerId: order.customerId },
        type: 'created',
        now: order.now
      })
      if (statements !== undefined) {
        const code = drawCode()
        // The id is the statement's own (stepEntryStatements); 0 only fills the parameters it replaces.
        const placed = stepEntry(0, code)
        const messages = messagesOf(placed)
        try {
          await statements
            .create(messages.length)
            .run({ ...outboxRowParams(messages, order.now), ...historyOf(placed), ...order, code }, tx)
        } catch (error) {
          if (dialect.isUniqueViolation(error, ORDER_CODE_CONSTRAINT)) {
            throw new RetryUseCase('the transaction code drawn is taken', { cause: error })
          }
          throw error
        }
        return code
      }
      // 90 million codes: a clash is rare, five in a row is not going to happen.
      for (let attempt = 0; attempt < 5; attempt++) {
        const code = drawCode()
        const id = await orders.insert(tx, { ...order, code })
        if (id === undefined) continue
        await orders.moveCounters(tx, null, entry.step.id)
        await writer.record(tx, stepEntry(id, code))
        return code
      }
      throw new Error('no free transaction code after five draws')
    },

    async record(tx: Tx, entry: StepEntry): Promise<void> {
      const messages = messagesOf(entry)
      const setsStep = entry.setsStep === true
      const countFrom = entry.countsMoveFrom
      const history = historyOf(entry)
      if (statements !== undefined && (setsStep || countFrom !== undefined || messages.length > 0)) {
        await statements.entry(setsStep, countFrom !== undefined, messages.length).run(
          {
            ...outboxRowParams(messages, entry.now),
            ...history,
            id: entry.order.id,
            stepId: entry.step.id,
            status: 'open',
            // Read only by the statements that count a move.
            countFrom: countFrom ?? 0
          },
          tx
        )
        return
      }
      if (setsStep) await orders.setStep(tx, entry.order.id, entry.step.id, 'open', entry.now)
      if (countFrom !== undefined) await orders.moveCounters(tx, countFrom, entry.step.id)
      if (messages.length === 0) {
        await orders.addHistory(tx, history)
        return
      }
      await outbox.enqueue(tx, messages, entry.now, await orders.addHistoryWithId(tx, history))
    }
  }
  return writer
}

export type StepEntryWriter = ReturnType<typeof stepEntryWriter>

/** The history entry of an order entering a step (D-56). */
function historyOf(entry: StepEntry): HistoryParams {
  return {
    orderId: entry.order.id,
    at: entry.now,
    type: entry.type,
    position: entry.step.position,
    description: entry.step.description,
    ...entry.author
  }
}

/** One `step` message per event of the step entered, in the step's event order. */
function messagesOf(entry: StepEntry): OutboxMessage[] {
  return decodeEvents(entry.step.events).map((channel) => ({
    channel,
    template: 'step',
    orderId: entry.order.id,
    customerId: entry.order.customerId,
    payload: {
      transaction_id: entry.order.publicId,
      transaction_code: entry.order.code,
      service_name: entry.service.name,
      position: entry.step.position,
      total_steps: entry.service.stepCount,
      description: entry.step.description
    }
  }))
}
