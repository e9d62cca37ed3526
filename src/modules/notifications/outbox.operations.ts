import type { Clock } from '../../common/clock.js'
import type { Database } from '../../db/database.js'
import type { OutboxStatus } from './outbox.table.js'
import { type OutboxListRow, outboxOperationsRepository } from './outbox-operations.repository.js'

export type { OutboxListRow }

/** What `outbox retry` did. */
export type RetryOutcome = { done: true; row: OutboxListRow } | { done: false; reason: string }

/** The operator's view of the outbox (D-90 `service-ordering outbox list|retry`). */
export function outboxOperations(database: Database, clock: Clock) {
  const outbox = outboxOperationsRepository(database)
  return {
    /** The newest rows first, optionally of one status. */
    list: (filter: { status?: OutboxStatus; limit: number }): Promise<OutboxListRow[]> => outbox.list(filter),

    /**
     * Makes a dead or failed row (by id or event id) due now. A dead row starts over with a full set
     * of attempts; a failed one waiting for its backoff keeps its count. Rows being delivered,
     * delivered or skipped are left alone.
     */
    retry: (ref: string): Promise<RetryOutcome> =>
      database.unitOfWork.run(async (tx) => {
        const now = clock.now()
        const row = await outbox.rowForRetry(tx, /^\d{1,15}$/.test(ref) ? { id: Number(ref) } : { eventId: ref })
        if (row === undefined) return { done: false, reason: `there is no outbox row ${ref}` }
        const inFlight = row.claimed_until !== null && row.claimed_until > now
        const failedPending = row.status === 'pending' && row.attempts > 0 && !inFlight
        if (row.status !== 'dead' && !failedPending) {
          const state = inFlight ? 'being delivered right now' : row.status === 'pending' ? 'pending and has not failed' : row.status
          return { done: false, reason: `outbox row ${row.id} is ${state}; only dead or failed rows are retried` }
        }
        const attempts = row.status === 'dead' ? 0 : row.attempts
        await outbox.requeue(tx, row.id, attempts, now)
        return { done: true, row: { ...row, status: 'pending', attempts, next_attempt_at: now, claimed_until: null } }
      })
  }
}
