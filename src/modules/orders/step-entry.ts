import { type Compilable, type Expression, type Kysely, type QueryCreator, sql, type Transaction } from 'kysely'
import type { Dialect } from '../../db/dialect.js'
import { type Param, type PreparedQuery, prepare } from '../../db/prepared.js'
import type { DB } from '../../db/schema.js'
import { RetryUseCase } from '../../db/unit-of-work.js'
import { decodeEvents } from '../catalogue/events.js'
import {
  type OutboxMessage,
  type OutboxRowParams,
  type OutboxWriter,
  outboxRowParams,
  outboxRows
} from '../notifications/outbox.repository.js'
import {
  countInUpdate,
  countMoveLocked,
  type HistoryParams,
  historyInsert,
  type NewOrderParams,
  type OrdersRepository,
  orderInsert,
  type StepTarget,
  setStepUpdate
} from './orders.repository.js'
import type { Actor, HistoryType } from './orders.table.js'

/** The order entering a step, as the history and its events describe it. */
export interface StepEntry {
  order: { id: number; publicId: string; code: number; customerId: string }
  service: { name: string; stepCount: number }
  step: StepTarget
  type: Extract<HistoryType, 'created' | 'moved' | 'updated'>
  actor: Actor
  now: number
  /** A move: the order's row is set to the step (open) here too, not by the caller. */
  setsStep?: boolean
  /** A move from this step (its row id): its counter and the entered step's move here too (D-44). */
  countsMoveFrom?: number
}

/** A new order entering its service's first step: what `create` needs beside the order's row. */
export type NewOrderEntry = Pick<StepEntry, 'service' | 'step' | 'actor'>

// PostgreSQL's name for the unique constraint on orders.code (migration 0004, `unique()`).
const CODE_CONSTRAINT = 'orders_code_key'

/**
 * Everything that happens when an order enters a step, in the caller's database transaction: a
 * history entry (D-56) and one outbox row per event of the step (D-60), so nothing is recorded
 * or announced for a change that rolls back. Counters are the caller's (they depend on where
 * the order came from), but for a move's (`countsMoveFrom`) and a new order's (`create`).
 *
 * On PostgreSQL these writes (and a move's update of the order and its counters; a new order's
 * row and counter) are one statement, with the order row, the counters and the history entry
 * written in WITH: one round trip instead of up to five, which is most of what a write costs
 * there (BENCHMARKS.md). SQLite runs them one by one; its statements are calls into the same process.
 */
export function stepEntryWriter(db: Kysely<DB>, dialect: Dialect, orders: OrdersRepository, outbox: OutboxWriter, drawCode: () => number) {
  // Each shape of statement (what it writes, how many messages) is compiled once.
  const statements = new Map<string, PreparedQuery<OutboxRowParams, unknown>>()
  const statementFor = (key: string, build: (db: Kysely<DB>, p: Param<OutboxRowParams>) => Compilable<unknown>) => {
    let statement = statements.get(key)
    if (statement === undefined) {
      statement = prepare<OutboxRowParams, unknown>(db, build)
      statements.set(key, statement)
    }
    return statement
  }

  // PostgreSQL: an order entering a step (a move's update of the order and its counters), its
  // history entry and messages, in one statement.
  const combinedStatement = (setsStep: boolean, countsMove: boolean, messages: number) =>
    statementFor(`entry:${setsStep}:${countsMove}:${messages}`, (db, p) => {
      // The CTEs' names are never referenced: only their writes matter, so the type may forget them.
      let start = (setsStep ? db.with('entered', (db) => setStepUpdate(db, p).returning('id')) : db) as unknown as QueryCreator<DB>
      if (countsMove)
        start = start.with('moved', (db) =>
          countMoveLocked(db, p('countFrom'), p('stepId')).returning('service_steps.id')
        ) as unknown as QueryCreator<DB>
      return entryAndMessages(start, p, messages)
    })

  // PostgreSQL: a new order, its step's counter and everything `record` writes for it, in one
  // statement. The order's id exists only inside it: every row after the INSERT (`created`) takes
  // it from that INSERT's RETURNING, in place of the parameters that would carry it.
  const createStatement = (messages: number) =>
    statementFor(`create:${messages}`, (db, p) => {
      const createdId = sql<number>`(select "id" from "created")`
      const q = ((name: string) => (name === 'orderId' || /^order_id\d+$/.test(name) ? createdId : p(name))) as Param<OutboxRowParams>
      const withOrder = db.with('created', (db) => orderInsert(db, p).returning('id')) as unknown as QueryCreator<DB>
      return entryAndMessages(
        withOrder.with('counted', (db) => countInUpdate(db, p).returning('id')) as unknown as QueryCreator<DB>,
        q,
        messages
      )
    })

  const writer = {
    /**
     * Places a new order at its service's first step, drawing its code (D-50), with its step's
     * counter and everything `record` writes for it; answers the code. A code already taken is
     * drawn again: on SQLite by the INSERT that yields no row, on PostgreSQL (where the order, its
     * counter, history and messages are one statement) by running the whole use case again
     * (`RetryUseCase`).
     */
    async create(trx: Transaction<DB>, order: Omit<NewOrderParams, 'code'>, entry: NewOrderEntry): Promise<number> {
      const stepEntry = (id: number, code: number): StepEntry => ({
        ...entry,
        order: { id, publicId: order.publicId, code, customerId: order.customerId },
        type: 'created',
        now: order.now
      })
      if (dialect.supportsWritesInWith) {
        const code = drawCode()
        // The id is the statement's own (above); 0 only fills the parameters it replaces.
        const placed = stepEntry(0, code)
        const messages = messagesOf(placed)
        try {
          await createStatement(messages.length).run(trx, { ...outboxRowParams(messages, order.now), ...historyOf(placed), ...order, code })
        } catch (error) {
          if (dialect.isUniqueViolation(error) && (error as { constraint?: unknown }).constraint === CODE_CONSTRAINT) {
            throw new RetryUseCase('the transaction code drawn is taken', { cause: error })
          }
          throw error
        }
        return code
      }
      // 90 million codes: a clash is rare, five in a row is not going to happen.
      for (let attempt = 0; attempt < 5; attempt++) {
        const code = drawCode()
        const id = await orders.insert(trx, { ...order, code })
        if (id === undefined) continue
        await orders.moveCounters(trx, null, entry.step.id)
        await writer.record(trx, stepEntry(id, code))
        return code
      }
      throw new Error('no free transaction code after five draws')
    },

    async record(trx: Transaction<DB>, entry: StepEntry): Promise<void> {
      const messages = messagesOf(entry)
      const setsStep = entry.setsStep === true
      const countFrom = entry.countsMoveFrom
      const history = historyOf(entry)
      if (dialect.supportsWritesInWith && (setsStep || countFrom !== undefined || messages.length > 0)) {
        await combinedStatement(setsStep, countFrom !== undefined, messages.length).run(trx, {
          ...outboxRowParams(messages, entry.now),
          ...history,
          id: entry.order.id,
          stepId: entry.step.id,
          status: 'open',
          ...(countFrom === undefined ? {} : { countFrom })
        })
        return
      }
      if (setsStep) await orders.setStep(trx, entry.order.id, entry.step.id, 'open', entry.now)
      if (countFrom !== undefined) await orders.moveCounters(trx, countFrom, entry.step.id)
      if (messages.length === 0) {
        await orders.addHistory(trx, history)
        return
      }
      await outbox.enqueue(trx, messages, entry.now, await orders.addHistoryWithId(trx, history))
    }
  }
  return writer
}

export type StepEntryWriter = ReturnType<typeof stepEntryWriter>

/**
 * PostgreSQL: the history entry and the step's messages (their rows keeping the entry's id), after
 * the WITH clauses `start` already holds: how both statements of `stepEntryWriter` end.
 */
function entryAndMessages(start: QueryCreator<DB>, p: Param<OutboxRowParams>, messages: number) {
  if (messages === 0) return historyInsert(start, p)
  return start
    .with('entry', (db) => historyInsert(db, p).returning('id'))
    .insertInto('outbox')
    .values((eb) => outboxRows(messages, p, eb.selectFrom('entry').select('entry.id') as unknown as Expression<number>))
}

/** The history entry of an order entering a step (D-56). */
function historyOf(entry: StepEntry): HistoryParams {
  return {
    orderId: entry.order.id,
    at: entry.now,
    type: entry.type,
    position: entry.step.position,
    description: entry.step.description,
    actor: entry.actor
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
