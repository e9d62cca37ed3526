import type { Clock } from '../../common/clock.js'
import type { Database } from '../../db/database.js'
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

/** What `outbox retry` did. */
export type RetryOutcome = { done: true; row: OutboxListRow } | { done: false; reason: string }

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

/** The operator's view of the outbox (D-90 `service-ordering outbox list|retry`). */
export function outboxOperations(database: Database, clock: Clock) {
  const { db } = database
  return {
    /** The newest rows first, optionally of one status. */
    list: (filter: { status?: OutboxStatus; limit: number }): Promise<OutboxListRow[]> => {
      let query = db.selectFrom('outbox').select(COLUMNS).orderBy('id', 'desc').limit(filter.limit)
      if (filter.status !== undefined) query = query.where('status', '=', filter.status)
      return query.execute()
    },

    /**
     * Makes a dead or failed row (by id or event id) due now. A dead row starts over with a full set
     * of attempts; a failed one waiting for its backoff keeps its count. Rows being delivered,
     * delivered or skipped are left alone.
     */
    retry: (ref: string): Promise<RetryOutcome> =>
      database.unitOfWork.run(async ({ db: trx }) => {
        const now = clock.now()
        let query = trx.selectFrom('outbox').select(COLUMNS)
        query = /^\d{1,15}$/.test(ref) ? query.where('id', '=', Number(ref)) : query.where('event_id', '=', ref)
        if (database.dialect.supportsRowLocks) query = query.forUpdate()
        const row = await query.executeTakeFirst()
        if (row === undefined) return { done: false, reason: `there is no outbox row ${ref}` }
        const inFlight = row.claimed_until !== null && row.claimed_until > now
        const failedPending = row.status === 'pending' && row.attempts > 0 && !inFlight
        if (row.status !== 'dead' && !failedPending) {
          const state = inFlight ? 'being delivered right now' : row.status === 'pending' ? 'pending and has not failed' : row.status
          return { done: false, reason: `outbox row ${row.id} is ${state}; only dead or failed rows are retried` }
        }
        const attempts = row.status === 'dead' ? 0 : row.attempts
        await trx
          .updateTable('outbox')
          .set({ status: 'pending', attempts, next_attempt_at: now, claimed_by: null, claimed_until: null, updated_at: now })
          .where('id', '=', row.id)
          .execute()
        return { done: true, row: { ...row, status: 'pending', attempts, next_attempt_at: now, claimed_until: null } }
      })
  }
}
