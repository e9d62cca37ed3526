import { type Expression, type QueryCreator, sql } from 'kysely'
import type { DB } from '../../db/schema.js'
import { type Param, type Statement, type StatementCompiler, withWrite } from '../../db/statement.js'
import { stepCounterIn, stepCountersMoveLocked } from '../catalogue/index.js'
import { MAX_MESSAGES_PER_INSERT, type OutboxRowParams, outboxRows } from '../notifications/index.js'
import {
  type HistoryParams,
  historyInsert,
  type NewOrderParams,
  orderInsert,
  type SetStepParams,
  setStepUpdate
} from './order-writes.repository.js'

/** The parameters of a step entry's one statement: the order's step, its counters, history and messages. */
export type EntryParams = OutboxRowParams & HistoryParams & SetStepParams & { countFrom: number }
/** The parameters of a new order's one statement: the order, its counter, history and messages. */
export type CreateParams = OutboxRowParams & HistoryParams & NewOrderParams

/** PostgreSQL's name for the unique constraint on orders.code (migration 0013 names it). */
export const ORDER_CODE_CONSTRAINT = 'orders_code_unique'

/**
 * PostgreSQL: every shape of a step entry's one statement, compiled at once: whether it sets the
 * order's step, whether it counts a move, and how many messages (a step has at most three events).
 */
export function stepEntryStatements(database: StatementCompiler) {
  const counts = Array.from({ length: MAX_MESSAGES_PER_INSERT + 1 }, (_, messages) => messages)
  const name = (setsStep: boolean, countsMove: boolean, messages: number) =>
    `orders.stepEntry${setsStep ? '.setStep' : ''}${countsMove ? '.countMove' : ''}.messages${messages}`

  // An order entering a step (a move's update of the order and its counters), its history entry
  // and messages; the writes before the last one are WITH clauses nothing reads.
  const entryStatement = (setsStep: boolean, countsMove: boolean, messages: number) =>
    database.prepare<EntryParams, never>(name(setsStep, countsMove, messages), (db, param) => {
      let start: QueryCreator<DB> = db
      if (setsStep) start = withWrite(start, 'entered', (db) => setStepUpdate(db, param).returning('id'))
      if (countsMove) {
        start = withWrite(start, 'moved', (db) =>
          stepCountersMoveLocked(db, param('countFrom'), param('stepId')).returning('service_steps.id')
        )
      }
      return entryAndMessages(start, param, messages)
    })
  const entries = [false, true].map((setsStep) =>
    [false, true].map((countsMove) => counts.map((n) => entryStatement(setsStep, countsMove, n)))
  )

  // A new order, its step's counter and everything `record` writes for it. The order's id exists
  // only inside the statement: every row after the INSERT (`created`) takes it from there.
  const creates = counts.map((messages) =>
    database.prepare<CreateParams, never>(`orders.createEntry.messages${messages}`, (db, param) => {
      const created = withWrite(db, 'created', (db) => orderInsert(db, param).returning('id'))
      const counted = withWrite(created, 'counted', (db) => stepCounterIn(db, param('stepId')).returning('id'))
      return entryAndMessages(counted, param, messages, sql<number>`(select "id" from "created")`)
    })
  )

  return {
    entry: (setsStep: boolean, countsMove: boolean, messages: number): Statement<EntryParams, never> =>
      entries[Number(setsStep)]![Number(countsMove)]![messages] ?? tooManyMessages(messages),
    create: (messages: number): Statement<CreateParams, never> => creates[messages] ?? tooManyMessages(messages)
  }
}

function tooManyMessages(messages: number): never {
  throw new Error(`a step entry announces at most ${MAX_MESSAGES_PER_INSERT} events, not ${messages}`)
}

/**
 * PostgreSQL: the history entry and the step's messages (their rows keeping the entry's id), after
 * the WITH clauses `start` already holds: how every statement of `stepEntryStatements` ends.
 */
function entryAndMessages(
  start: QueryCreator<DB>,
  param: Param<OutboxRowParams & HistoryParams>,
  messages: number,
  orderId?: Expression<number>
) {
  if (messages === 0) return historyInsert(start, param, orderId)
  return withWrite(start, 'entry', (db) => historyInsert(db, param, orderId).returning('id'))
    .insertInto('outbox')
    .values(outboxRows(messages, param, sql<number>`(select "id" from "entry")`, orderId))
}
