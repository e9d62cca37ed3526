import type { Kysely, Transaction, Updateable } from 'kysely'
import type { Dialect } from '../../db/dialect.js'
import { prepare, type QueryTarget } from '../../db/prepared.js'
import type { DB } from '../../db/schema.js'
import type { CustomersTable } from './customers.table.js'
import type { CustomerProfileRow } from './customers.views.js'

// ARCHITECTURE 7: what leaves this module is named here; hashes and card ciphertext are not in it.
const PROFILE_COLUMNS = [
  'id',
  'email',
  'first_name',
  'last_name',
  'phone',
  'preference',
  'street',
  'apartment',
  'city',
  'state',
  'zip',
  'payment_customer_id'
] as const

/** A whole new customer row. */
export type NewCustomerRow = CustomersTable

/** Columns an update may change. */
export type CustomerUpdate = Omit<Updateable<CustomersTable>, 'id' | 'created_at'>

/** SQL of customer records (D-30 to D-34). Reads are compiled once per database. */
export function customersRepository(db: Kysely<DB>, dialect: Dialect) {
  const byId = prepare<{ id: string }, CustomerProfileRow>(db, (db, p) =>
    db.selectFrom('customers').select(PROFILE_COLUMNS).where('id', '=', p('id'))
  )

  // Held until the update commits on PostgreSQL, so two updates of one customer apply one after the other.
  const lockedById = prepare<{ id: string }, CustomerProfileRow>(db, (db, p) => {
    const query = db.selectFrom('customers').select(PROFILE_COLUMNS).where('id', '=', p('id'))
    return dialect.supportsRowLocks ? query.forUpdate() : query
  })

  const idByEmail = prepare<{ email: string }, { id: string }>(db, (db, p) =>
    db.selectFrom('customers').select('id').where('email', '=', p('email'))
  )

  const insert = prepare<NewCustomerRow, unknown>(db, (db, p) =>
    db.insertInto('customers').values({
      id: p('id'),
      email: p('email'),
      first_name: p('first_name'),
      last_name: p('last_name'),
      first_name_lc: p('first_name_lc'),
      last_name_lc: p('last_name_lc'),
      phone: p('phone'),
      preference: p('preference'),
      street: p('street'),
      apartment: p('apartment'),
      city: p('city'),
      state: p('state'),
      zip: p('zip'),
      password_hash: p('password_hash'),
      payment_customer_id: p('payment_customer_id'),
      card_ciphertext: p('card_ciphertext'),
      card_last4: p('card_last4'),
      card_expiration: p('card_expiration'),
      created_at: p('created_at'),
      updated_at: p('updated_at')
    })
  )

  return {
    /** The customer's profile, outside any transaction (reader) or inside one. */
    find: (target: QueryTarget, id: string) => byId.first(target, { id }),

    /** The customer's profile, row-locked on PostgreSQL until the transaction ends. */
    findForUpdate: (trx: Transaction<DB>, id: string) => lockedById.first(trx, { id }),

    /** The id of the customer using this (normalised) e-mail, if any. */
    idByEmail: (target: QueryTarget, email: string) => idByEmail.first(target, { email }),

    insert: (trx: Transaction<DB>, row: NewCustomerRow) => insert.run(trx, row),

    update: async (trx: Transaction<DB>, id: string, changes: CustomerUpdate): Promise<void> => {
      await trx.updateTable('customers').set(changes).where('id', '=', id).execute()
    }
  }
}

export type CustomersRepository = ReturnType<typeof customersRepository>
