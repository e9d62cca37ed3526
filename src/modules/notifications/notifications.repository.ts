import type { StatementBuilder, StatementCompiler, Tx } from '../../db/statement.js'
import type { Contact } from '../customers/index.js'
import type { TrackedEntry } from '../orders/index.js'

/**
 * The SQL fragments of the modules that own the tables the channels read and write (one
 * writer per table): customers' contact read and orders' `tracked` history entry. The composition
 * root passes them in, as those modules' index.ts export them.
 */
export interface OwnerFragments {
  contact: StatementBuilder<{ id: string }, Contact>
  trackedEntry: StatementBuilder<TrackedEntry, unknown>
}

/** The rows of other modules the channels read and write: contacts and `tracked` history entries. */
export function notificationsRepository(database: StatementCompiler, fragments: OwnerFragments) {
  const contact = database.prepare('notifications.contact', fragments.contact)
  const tracked = database.prepare('notifications.tracked', fragments.trackedEntry)

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
