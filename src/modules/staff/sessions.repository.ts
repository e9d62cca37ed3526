import type { StatementCompiler, Tx } from '../../db/statement.js'
import type { StoredSession } from '../../platform/session-auth.js'

type NewSession = { token_hash: string; staff_id: string; csrf_hash: string; now: number }
type NewToken = { token_hash: string; staff_id: string; created_at: number; expires_at: number }

/** SQL of console sessions (D-16) and set-password tokens (D-15); both only ever handled as SHA-256. */
export function sessionsRepository(database: StatementCompiler) {
  const statements = {
    insert: database.prepare<NewSession, never>('staffSessions.insert', (db, param) =>
      db.insertInto('staff_sessions').values({
        token_hash: param('token_hash'),
        staff_id: param('staff_id'),
        csrf_hash: param('csrf_hash'),
        created_at: param('now'),
        last_seen_at: param('now')
      })
    ),
    // Read on every request with a session cookie: the session and its user, if the user is active.
    find: database.prepare<{ token_hash: string }, StoredSession>('staffSessions.find', (db, param) =>
      db
        .selectFrom('staff_sessions as s')
        .innerJoin('staff_users as u', 'u.id', 's.staff_id')
        .select(['s.staff_id', 'u.name', 'u.role', 's.csrf_hash', 's.created_at', 's.last_seen_at'])
        .where('s.token_hash', '=', param('token_hash'))
        .where('u.status', '=', 'active')
    ),
    touch: database.prepare<{ token_hash: string; at: number }, never>('staffSessions.touch', (db, param) =>
      db
        .updateTable('staff_sessions')
        .set({ last_seen_at: param('at') })
        .where('token_hash', '=', param('token_hash'))
        .where('last_seen_at', '<', param('at'))
    ),
    end: database.prepare<{ token_hash: string }, never>('staffSessions.end', (db, param) =>
      db.deleteFrom('staff_sessions').where('token_hash', '=', param('token_hash'))
    ),
    endAllOf: database.prepare<{ staff_id: string }, never>('staffSessions.endAllOf', (db, param) =>
      db.deleteFrom('staff_sessions').where('staff_id', '=', param('staff_id'))
    ),
    purge: database.prepare<{ created_before: number; seen_before: number }, never>('staffSessions.purge', (db, param) =>
      db
        .deleteFrom('staff_sessions')
        .where((eb) => eb.or([eb('created_at', '<=', param('created_before')), eb('last_seen_at', '<=', param('seen_before'))]))
    ),
    insertToken: database.prepare<NewToken, never>('staffTokens.insert', (db, param) =>
      db.insertInto('staff_password_tokens').values({
        token_hash: param('token_hash'),
        staff_id: param('staff_id'),
        created_at: param('created_at'),
        expires_at: param('expires_at'),
        used_at: null
      })
    ),
    liveToken: database.prepare<{ token_hash: string; now: number }, { staff_id: string }>('staffTokens.live', (db, param) =>
      db
        .selectFrom('staff_password_tokens')
        .select('staff_id')
        .where('token_hash', '=', param('token_hash'))
        .where('used_at', 'is', null)
        .where('expires_at', '>', param('now'))
    ),
    // Spending is the check: of two uses at once, only one changes the row (single use, D-36).
    spendToken: database.prepare<{ token_hash: string; now: number }, { staff_id: string }>('staffTokens.spend', (db, param) =>
      db
        .updateTable('staff_password_tokens')
        .set({ used_at: param('now') })
        .where('token_hash', '=', param('token_hash'))
        .where('used_at', 'is', null)
        .where('expires_at', '>', param('now'))
        .returning('staff_id')
    ),
    spendTokensOf: database.prepare<{ staff_id: string; now: number }, never>('staffTokens.spendAllOf', (db, param) =>
      db
        .updateTable('staff_password_tokens')
        .set({ used_at: param('now') })
        .where('staff_id', '=', param('staff_id'))
        .where('used_at', 'is', null)
    )
  }

  return {
    insert: async (tx: Tx, session: NewSession): Promise<void> => {
      await statements.insert.run(session, tx)
    },
    /** The session of a token hash with its active user (platform/session-auth.ts `SessionStore.findSession`). */
    find: (tokenHash: string) => statements.find.first({ token_hash: tokenHash }),
    touch: async (tx: Tx, tokenHash: string, at: number): Promise<void> => {
      await statements.touch.run({ token_hash: tokenHash, at }, tx)
    },
    end: async (tx: Tx, tokenHash: string): Promise<void> => {
      await statements.end.run({ token_hash: tokenHash }, tx)
    },
    /** Ends every session of a staff user at once (D-15). */
    endAllOf: async (tx: Tx, staffId: string): Promise<void> => {
      await statements.endAllOf.run({ staff_id: staffId }, tx)
    },
    /** Deletes sessions that ended by time (D-16); answers how many. */
    purge: (tx: Tx, createdBefore: number, seenBefore: number) =>
      statements.purge.run({ created_before: createdBefore, seen_before: seenBefore }, tx),
    insertToken: async (tx: Tx, token: NewToken): Promise<void> => {
      await statements.insertToken.run(token, tx)
    },
    /** The staff user of an unspent, unexpired token, if any. */
    liveToken: (tokenHash: string, now: number) => statements.liveToken.first({ token_hash: tokenHash, now }),
    /** Spends an unspent, unexpired token; the staff user it was for, or undefined when it was not live. */
    spendToken: (tx: Tx, tokenHash: string, now: number) => statements.spendToken.first({ token_hash: tokenHash, now }, tx),
    /** Spends every open link of a staff user: a new password or a disabled account makes them useless. */
    spendTokensOf: async (tx: Tx, staffId: string, now: number): Promise<void> => {
      await statements.spendTokensOf.run({ staff_id: staffId, now }, tx)
    }
  }
}

export type SessionsRepository = ReturnType<typeof sessionsRepository>
