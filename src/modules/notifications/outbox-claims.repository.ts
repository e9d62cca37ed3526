import type { Kysely } from 'kysely'
import type { DB } from '../../db/schema.js'
import type { Param, StatementCompiler, Tx } from '../../db/statement.js'
import type { OutboxChannel, OutboxTemplate } from './outbox.table.js'

/** An outbox row a dispatcher holds a lease on. */
export interface ClaimedRow {
  id: number
  event_id: string
  channel: OutboxChannel
  template: OutboxTemplate
  order_id: number | null
  customer_id: string | null
  history_id: number | null
  payload: string
  attempts: number
  claimed_until: number
  /** When the change that wrote the row happened: the event's time. */
  created_at: number
  /** Null until an attempt failed; kept when a dead row is sent again (`outbox retry`). */
  last_error: string | null
}

type Due = { now: number; skip1: OutboxChannel; skip2: OutboxChannel; skip3: OutboxChannel }

/** The channels a claim passes over (all of them busy to the cap); at most the three there are. */
export type SkippedChannels = readonly OutboxChannel[]

// One statement for every set of skipped channels: the unused slots hold '', which no row's channel is.
const NO_CHANNEL = '' as OutboxChannel
function skipParams(skipped: SkippedChannels): Pick<Due, 'skip1' | 'skip2' | 'skip3'> {
  return { skip1: skipped[0] ?? NO_CHANNEL, skip2: skipped[1] ?? NO_CHANNEL, skip3: skipped[2] ?? NO_CHANNEL }
}

// Rows that may be delivered now: pending, due, not leased (or the lease ran out: a killed
// dispatcher loses nothing), and first in line of their order. D-60 order per transaction: an
// earlier row of the same order that is still pending (waiting, backing off or claimed) holds later
// ones back; delivered, skipped and dead rows do not. Rows of no order are independent.
function deliverable(db: Kysely<DB>, param: Param<Due>) {
  return db
    .selectFrom('outbox as o')
    .where('o.status', '=', 'pending')
    .where('o.next_attempt_at', '<=', param('now'))
    .where('o.channel', 'not in', [param('skip1'), param('skip2'), param('skip3')])
    .where((eb) => eb.or([eb('o.claimed_until', 'is', null), eb('o.claimed_until', '<=', param('now'))]))
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('outbox as e')
            .select('e.id')
            .whereRef('e.order_id', '=', 'o.order_id')
            .whereRef('e.id', '<', 'o.id')
            .where('e.status', '=', 'pending')
        )
      )
    )
}

/** SQL of the dispatcher: finding, claiming and settling outbox rows (D-60, D-61). Compiled once. */
export function outboxClaims(database: StatementCompiler) {
  const due = database.prepare<Due, { id: number }>('outbox.due', (db, param) => deliverable(db, param).select('o.id').limit(1))

  // One statement takes the lease on up to `limit` rows. PostgreSQL: FOR UPDATE SKIP LOCKED, so
  // dispatchers claiming at the same moment each get other rows and never wait on each other (D-61);
  // a row another claim just leased is re-checked by PostgreSQL and no longer matches. SQLite has one
  // writer at a time (begin immediate), so the plain statement is already exclusive.
  const claim = database.prepare<Due & { me: string; until: number; limit: number }, ClaimedRow>('outbox.claim', (db, param) =>
    db
      .updateTable('outbox')
      .set({ claimed_by: param('me'), claimed_until: param('until'), updated_at: param('now') })
      .where('id', 'in', () => {
        const candidates = deliverable(db, param).select('o.id').orderBy('o.id').limit(param('limit'))
        return database.dialect.supportsSkipLocked ? candidates.forUpdate('o').skipLocked() : candidates
      })
      .returning([
        'id',
        'event_id',
        'channel',
        'template',
        'order_id',
        'customer_id',
        'history_id',
        'payload',
        'attempts',
        'claimed_until',
        'created_at',
        'last_error'
      ])
  )

  type Held = { id: number; me: string; now: number }

  // Every outcome applies only while this dispatcher still holds the row: a dispatcher whose lease
  // ran out and was taken over records nothing, so a row is settled once.
  const delivered = database.prepare<Held, unknown>('outbox.delivered', (db, param) =>
    db
      .updateTable('outbox')
      .set({ status: 'delivered', delivered_at: param('now'), updated_at: param('now'), claimed_by: null, claimed_until: null })
      .where('id', '=', param('id'))
      .where('claimed_by', '=', param('me'))
      .where('status', '=', 'pending')
  )

  const skipped = database.prepare<Held & { reason: string }, unknown>('outbox.skipped', (db, param) =>
    db
      .updateTable('outbox')
      .set({ status: 'skipped', last_error: param('reason'), updated_at: param('now'), claimed_by: null, claimed_until: null })
      .where('id', '=', param('id'))
      .where('claimed_by', '=', param('me'))
      .where('status', '=', 'pending')
  )

  const failed = database.prepare<Held & { status: 'pending' | 'dead'; attempts: number; next: number; error: string }, unknown>(
    'outbox.failed',
    (db, param) =>
      db
        .updateTable('outbox')
        .set({
          status: param('status'),
          attempts: param('attempts'),
          next_attempt_at: param('next'),
          last_error: param('error'),
          updated_at: param('now'),
          claimed_by: null,
          claimed_until: null
        })
        .where('id', '=', param('id'))
        .where('claimed_by', '=', param('me'))
        .where('status', '=', 'pending')
  )

  const scrub = database.prepare<{ id: number; payload: string }, unknown>('outbox.scrub', (db, param) =>
    db
      .updateTable('outbox')
      .set({ payload: param('payload') })
      .where('id', '=', param('id'))
  )

  return {
    /** True when some row of a channel not skipped could be claimed now; a read, so idle polls take no write lock. */
    hasDue: async (now: number, skipped: SkippedChannels = []): Promise<boolean> =>
      (await due.first({ now, ...skipParams(skipped) })) !== undefined,

    /** Leases up to `limit` deliverable rows of the channels not skipped to dispatcher `me` until `until`, lowest id first. */
    claim: async (tx: Tx, me: string, now: number, until: number, limit: number, skipped: SkippedChannels = []): Promise<ClaimedRow[]> => {
      const rows = await claim.rows({ me, now, until, limit, ...skipParams(skipped) }, tx)
      return rows.sort((a, b) => a.id - b.id)
    },

    /** Marks a held row delivered; false when the lease was lost. */
    markDelivered: async (tx: Tx, held: Held): Promise<boolean> => (await delivered.run(held, tx)) === 1,

    /** Marks a held row skipped with its reason; false when the lease was lost. */
    markSkipped: async (tx: Tx, held: Held, reason: string): Promise<boolean> => (await skipped.run({ ...held, reason }, tx)) === 1,

    /** Records a failure: back to pending at `next`, or dead; false when the lease was lost. */
    markFailed: async (
      tx: Tx,
      held: Held,
      outcome: { status: 'pending' | 'dead'; attempts: number; next: number; error: string }
    ): Promise<boolean> => (await failed.run({ ...held, ...outcome }, tx)) === 1,

    /** Replaces a row's payload, e.g. to drop a reset link once it was sent (D-73). */
    scrubPayload: async (tx: Tx, id: number, payload: string): Promise<void> => {
      await scrub.run({ id, payload }, tx)
    }
  }
}

/** The dispatcher's SQL, compiled for one database. */
export type OutboxClaims = ReturnType<typeof outboxClaims>
