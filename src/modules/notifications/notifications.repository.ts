import type { StatementCompiler, Tx } from '../../db/statement.js'
import { STEP_ENTRY_TYPES } from '../orders/orders.table.js'

/** How to reach a customer, read when a message is delivered, not when it was written (D-60). */
export interface Contact {
  first_name: string
  last_name: string
  email: string
  phone: string
}

/** A `tracked` history entry: when its step was entered, and the step entry it follows (D-56). */
export interface TrackedEntry {
  order_id: number
  at: number
  position: number
  description: string
  follows: number | null
}

/** The rows of other modules the channels read and write: contacts and `tracked` history entries. */
export function notificationsRepository(database: StatementCompiler) {
  const contact = database.prepare<{ id: string }, Contact>('notifications.contact', (db, param) =>
    db.selectFrom('customers').select(['first_name', 'last_name', 'email', 'phone']).where('id', '=', param('id'))
  )

  const tracked = database.prepare<TrackedEntry, unknown>('notifications.tracked', (db, param) =>
    db.insertInto('order_history').values({
      order_id: param('order_id'),
      at: param('at'),
      type: 'tracked',
      position: param('position'),
      description: param('description'),
      actor: 'system',
      // A row written before migration 0011, or by an older process during a rolling upgrade, has
      // no history_id: the step entry is the order's latest of that step and millisecond.
      follows: (eb) =>
        eb.fn.coalesce(
          eb.val(param('follows')),
          eb
            .selectFrom('order_history as h')
            .select((eb) => eb.fn.max('h.id').as('id'))
            .where('h.order_id', '=', param('order_id'))
            .where('h.at', '=', param('at'))
            .where('h.position', '=', param('position'))
            .where('h.type', 'in', [...STEP_ENTRY_TYPES])
        )
    })
  )

  return {
    /** The customer's current name, e-mail and phone; undefined when there is no such customer. */
    contact: (id: string) => contact.first({ id }),

    /** D-56: a `trak` event is a `tracked` history entry by actor `system`. */
    insertTracked: async (tx: Tx, entry: TrackedEntry) => {
      await tracked.run(entry, tx)
    }
  }
}

/** Contacts and tracking, compiled for one database. */
export type NotificationsRepository = ReturnType<typeof notificationsRepository>

/** "First Last", or an empty text for a customer with neither name. */
export function fullName(contact: Pick<Contact, 'first_name' | 'last_name'>): string {
  return `${contact.first_name} ${contact.last_name}`.trim()
}
