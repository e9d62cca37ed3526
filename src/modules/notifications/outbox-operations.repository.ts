import type { StatementCompiler, Tx } from '../../db/statement.js'
import type { OutboxChannel, OutboxStatus, OutboxTemplate } from './outbox.table.js'

/** An outbox row as operators see it: never the payload, which may hold a sealed reset link. */
export interface OutboxListRow {
  id: number
  event_id: string
  channel: OutboxChannel
  template: OutboxTemplate
  status: OutboxStatus
  attempts: number
  next_attempt_at: number
  claimed_until: number | null
  last_error: string | null
  created_at: number
  delivered_at: number | null
}

const COLUMNS = [
  'id',
  'event_id',
  'channel',
  'template',
  'status',
  'attempts',
  'next_attempt_at',
  'claimed_until',
  'last_error',
  'created_at',
  'delivered_at'
] as const

/** SQL of the operator's outbox commands (D-90 `service-ordering outbox list|retry`); compiled once. */
export function outboxOperationsRepository(database: StatementCompiler) {
  const locks = database.dialect.supportsRowLocks
  const newest = database.prepare<{ limit: number }, OutboxListRow>('outbox.list', (db, param) =>
    db.selectFrom('outbox').select(COLUMNS).orderBy('id', 'desc').limit(param('limit'))
  )
  const newestOfStatus = database.prepare<{ status: OutboxStatus; limit: number }, OutboxListRow>('outbox.list.status', (db, param) =>
    db.selectFrom('outbox').select(COLUMNS).where('status', '=', param('status')).orderBy('id', 'desc').limit(param('limit'))
  )
  // The row a retry changes, locked for it where rows can be (PostgreSQL).
  const byId = database.prepare<{ id: number }, OutboxListRow>('outbox.retryRowById', (db, param) => {
    const query = db.selectFrom('outbox').select(COLUMNS).where('id', '=', param('id'))
    return locks ? query.forUpdate() : query
  })
  const byEventId = database.prepare<{ eventId: string }, OutboxListRow>('outbox.retryRowByEventId', (db, param) => {
    const query = db.selectFrom('outbox').select(COLUMNS).where('event_id', '=', param('eventId'))
    return locks ? query.forUpdate() : query
  })
  const requeue = database.prepare<{ id: number; attempts: number; now: number }, never>('outbox.requeue', (db, param) =>
    db
      .updateTable('outbox')
      .set({
        status: 'pending',
        attempts: param('attempts'),
        next_attempt_at: param('now'),
        claimed_by: null,
        claimed_until: null,
        updated_at: param('now')
      })
      .where('id', '=', param('id'))
  )

  return {
    /** The newest rows first, optionally of one status. */
    list: (filter: { status?: OutboxStatus; limit: number }): Promise<OutboxListRow[]> =>
      filter.status === undefined
        ? newest.rows({ limit: filter.limit })
        : newestOfStatus.rows({ status: filter.status, limit: filter.limit }),

    /** A row by id or by event id, locked for the rest of `tx` (PostgreSQL). */
    rowForRetry: (tx: Tx, ref: { id: number } | { eventId: string }): Promise<OutboxListRow | undefined> =>
      'id' in ref ? byId.first(ref, tx) : byEventId.first(ref, tx),

    /** Makes a row due now, with this many attempts behind it. */
    requeue: async (tx: Tx, id: number, attempts: number, now: number): Promise<void> => {
      await requeue.run({ id, attempts, now }, tx)
    }
  }
}
