import type { StatementCompiler, Tx } from '../../db/statement.js'

/** SQL of password reset tokens (D-36, D-37); tokens are only ever handled as their SHA-256. */
export function passwordResetRepository(database: StatementCompiler) {
  const insert = database.prepare<{ token_hash: string; customer_id: string; created_at: number; expires_at: number }, unknown>(
    'passwordReset.insert',
    (db, param) =>
      db.insertInto('password_reset_tokens').values({
        token_hash: param('token_hash'),
        customer_id: param('customer_id'),
        created_at: param('created_at'),
        expires_at: param('expires_at'),
        used_at: null
      })
  )

  const issuedSince = database.prepare<{ customer_id: string; since: number }, { issued: number }>(
    'passwordReset.issuedSince',
    (db, param) =>
      db
        .selectFrom('password_reset_tokens')
        .select((eb) => eb.fn.countAll<number>().as('issued'))
        .where('customer_id', '=', param('customer_id'))
        .where('created_at', '>=', param('since'))
  )

  const live = database.prepare<{ token_hash: string; now: number }, { customer_id: string }>('passwordReset.live', (db, param) =>
    db
      .selectFrom('password_reset_tokens')
      .select('customer_id')
      .where('token_hash', '=', param('token_hash'))
      .where('used_at', 'is', null)
      .where('expires_at', '>', param('now'))
  )

  // Spending is the check: of two confirms at once, only one changes the row (D-37: single use).
  const spend = database.prepare<{ token_hash: string; now: number }, { customer_id: string }>('passwordReset.spend', (db, param) =>
    db
      .updateTable('password_reset_tokens')
      .set({ used_at: param('now') })
      .where('token_hash', '=', param('token_hash'))
      .where('used_at', 'is', null)
      .where('expires_at', '>', param('now'))
      .returning('customer_id')
  )

  const spendAllOf = database.prepare<{ customer_id: string; now: number }, unknown>('passwordReset.spendAllOf', (db, param) =>
    db
      .updateTable('password_reset_tokens')
      .set({ used_at: param('now') })
      .where('customer_id', '=', param('customer_id'))
      .where('used_at', 'is', null)
  )

  const setPassword = database.prepare<{ id: string; password_hash: string; now: number }, unknown>(
    'passwordReset.setPassword',
    (db, param) =>
      db
        .updateTable('customers')
        .set({ password_hash: param('password_hash'), updated_at: param('now') })
        .where('id', '=', param('id'))
  )

  return {
    insert: (tx: Tx, row: { token_hash: string; customer_id: string; created_at: number; expires_at: number }) => insert.run(row, tx),

    /** How many tokens the customer was sent since `since`. */
    issuedSince: async (tx: Tx, customerId: string, since: number): Promise<number> =>
      Number((await issuedSince.first({ customer_id: customerId, since }, tx))?.issued ?? 0),

    /** The customer of an unspent, unexpired token, if any. */
    findLive: (tokenHash: string, now: number) => live.first({ token_hash: tokenHash, now }),

    /** Spends an unspent, unexpired token; the customer it was for, or undefined when it was not live. */
    spend: (tx: Tx, tokenHash: string, now: number) => spend.first({ token_hash: tokenHash, now }, tx),

    /** Spends every other token of the customer: a new password makes older links useless. */
    spendAllOf: (tx: Tx, customerId: string, now: number) => spendAllOf.run({ customer_id: customerId, now }, tx),

    setPassword: (tx: Tx, customerId: string, passwordHash: string, now: number) =>
      setPassword.run({ id: customerId, password_hash: passwordHash, now }, tx)
  }
}

export type PasswordResetRepository = ReturnType<typeof passwordResetRepository>
