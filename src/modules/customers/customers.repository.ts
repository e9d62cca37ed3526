import type { Updateable } from 'kysely'
import type { StatementCompiler, Tx } from '../../db/statement.js'
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
export function customersRepository(database: StatementCompiler) {
  const byId = database.prepare<{ id: string }, CustomerProfileRow>('customers.byId', (db, param) =>
    db.selectFrom('customers').select(PROFILE_COLUMNS).where('id', '=', param('id'))
  )

  // Held until the update commits on PostgreSQL, so two updates of one customer apply one after the other.
  const lockedById = database.prepare<{ id: string }, CustomerProfileRow>('customers.lockedById', (db, param) => {
    const query = db.selectFrom('customers').select(PROFILE_COLUMNS).where('id', '=', param('id'))
    return database.dialect.supportsRowLocks ? query.forUpdate() : query
  })

  const idByEmail = database.prepare<{ email: string }, { id: string }>('customers.idByEmail', (db, param) =>
    db.selectFrom('customers').select('id').where('email', '=', param('email'))
  )

  const insert = database.prepare<NewCustomerRow, unknown>('customers.insert', (db, param) =>
    db.insertInto('customers').values({
      id: param('id'),
      email: param('email'),
      first_name: param('first_name'),
      last_name: param('last_name'),
      first_name_lc: param('first_name_lc'),
      last_name_lc: param('last_name_lc'),
      phone: param('phone'),
      preference: param('preference'),
      street: param('street'),
      apartment: param('apartment'),
      city: param('city'),
      state: param('state'),
      zip: param('zip'),
      password_hash: param('password_hash'),
      payment_customer_id: param('payment_customer_id'),
      card_ciphertext: param('card_ciphertext'),
      card_last4: param('card_last4'),
      card_expiration: param('card_expiration'),
      created_at: param('created_at'),
      updated_at: param('updated_at')
    })
  )

  return {
    /** The customer's profile, in `tx` or outside any transaction. */
    find: (id: string, tx?: Tx) => byId.first({ id }, tx),

    /** The customer's profile, row-locked on PostgreSQL until the transaction ends. */
    findForUpdate: (tx: Tx, id: string) => lockedById.first({ id }, tx),

    /** The id of the customer using this (normalised) e-mail, if any. */
    idByEmail: (email: string, tx?: Tx) => idByEmail.first({ email }, tx),

    insert: (tx: Tx, row: NewCustomerRow) => insert.run(row, tx),

    update: async (tx: Tx, id: string, changes: CustomerUpdate): Promise<void> => {
      await tx.db.updateTable('customers').set(changes).where('id', '=', id).execute()
    }
  }
}

export type CustomersRepository = ReturnType<typeof customersRepository>
