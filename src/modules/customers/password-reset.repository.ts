import type { Kysely, Transaction } from 'kysely'
import { prepare, type QueryTarget } from '../../db/prepared.js'
import type { DB } from '../../db/schema.js'

/** SQL of password reset tokens (D-36, D-37); tokens are only ever handled as their SHA-256. */
export function passwordResetRepository(db: Kysely<DB>) {
  const insert = prepare<{ token_hash: string; customer_id: string; created_at: number; expires_at: number }, unknown>(db, (db, p) =>
    db.insertInto('password_reset_tokens').values({
      token_hash: p('token_hash'),
      customer_id: p('customer_id'),
      created_at: p('created_at'),
      expires_at: p('expires_at'),
      used_at: null
    })
  )

  const issuedSince = prepare<{ customer_id: string; since: number }, { issued: number }>(db, (db, p) =>
    db
      .selectFrom('password_reset_tokens')
      .select((eb) => eb.fn.countAll<number>().as('issued'))
      .where('customer_id', '=', p('customer_id'))
      .where('created_at', '>=', p('since'))
  )

  const live = prepare<{ token_hash: string; now: number }, { customer_id: string }>(db, (db, p) =>
    db
      .selectFrom('password_reset_tokens')
      .select('customer_id')
      .where('token_hash', '=', p('token_hash'))
      .where('used_at', 'is', null)
      .where('expires_at', '>', p('now'))
  )

  // Spending is the check: of two confirms at once, only one changes the row (D-37: single use).
  const spend = prepare<{ token_hash: string; now: number }, { customer_id: string }>(db, (db, p) =>
    db
      .updateTable('password_reset_tokens')
      .set({ used_at: p('now') })
      .where('token_hash', '=', p('token_hash'))
      .where('used_at', 'is', null)
      .where('expires_at', '>', p('now'))
      .returning('customer_id')
  )

  const spendAllOf = prepare<{ customer_id: string; now: number }, unknown>(db, (db, p) =>
    db
      .updateTable('password_reset_tokens')
      .set({ used_at: p('now') })
      .where('customer_id', '=', p('customer_id'))
      .where('used_at', 'is', null)
  )

  const setPassword = prepare<{ id: string; password_hash: string; now: number }, unknown>(db, (db, p) =>
    db
      .updateTable('customers')
      .set({ password_hash: p('password_hash'), updated_at: p('now') })
      .where('id', '=', p('id'))
  )

  return {
    insert: (trx: Transaction<DB>, row: { token_hash: string; customer_id: string; created_at: number; expires_at: number }) =>
      insert.run(trx, row),

    /** How many tokens the customer was sent since `since`. */
    issuedSince: async (trx: Transaction<DB>, customerId: string, since: number): Promise<number> =>
      Number((await issuedSince.first(trx, { customer_id: customerId, since }))?.issued ?? 0),

    /** The customer of an unspent, unexpired token, if any. */
    findLive: (target: QueryTarget, tokenHash: string, now: number) => live.first(target, { token_hash: tokenHash, now }),

    /** Spends an unspent, unexpired token; the customer it was for, or undefined when it was not live. */
    spend: (trx: Transaction<DB>, tokenHash: string, now: number) => spend.first(trx, { token_hash: tokenHash, now }),

    /** Spends every other token of the customer: a new password makes older links useless. */
    spendAllOf: (trx: Transaction<DB>, customerId: string, now: number) => spendAllOf.run(trx, { customer_id: customerId, now }),

    setPassword: (trx: Transaction<DB>, customerId: string, passwordHash: string, now: number) =>
      setPassword.run(trx, { id: customerId, password_hash: passwordHash, now })
  }
}

export type PasswordResetRepository = ReturnType<typeof passwordResetRepository>
