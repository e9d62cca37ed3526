import type { StatementCompiler } from '../../db/statement.js'

/** The stored login of a customer by normalised e-mail, read on every customer-authenticated request. */
export function customerLoginQuery(database: StatementCompiler) {
  return database.prepare<{ email: string }, { id: string; password_hash: string | null }>('customers.login', (db, param) =>
    db.selectFrom('customers').select(['id', 'password_hash']).where('email', '=', param('email'))
  )
}
