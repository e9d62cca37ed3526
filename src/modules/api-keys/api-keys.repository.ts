import type { StatementCompiler, Tx } from '../../db/statement.js'
import type { ApiKeyRole } from './api-keys.table.js'

/** A key as listed: never its secret or hash. */
export interface ApiKeySummary {
  id: string
  name: string
  role: ApiKeyRole
  created_at: number
  revoked_at: number | null
}

type NewKey = { id: string; name: string; role: ApiKeyRole; secret_hash: string; created_at: number }

/** SQL of the api_keys table; statements compiled once per database. */
export function apiKeysRepository(database: StatementCompiler) {
  const statements = {
    findForAuth: database.prepare<{ id: string }, { role: ApiKeyRole; name: string; secret_hash: string; revoked_at: number | null }>(
      'apiKeys.findForAuth',
      (db, param) => db.selectFrom('api_keys').select(['role', 'name', 'secret_hash', 'revoked_at']).where('id', '=', param('id'))
    ),
    insert: database.prepare<NewKey, never>('apiKeys.insert', (db, param) =>
      db.insertInto('api_keys').values({
        id: param('id'),
        name: param('name'),
        role: param('role'),
        secret_hash: param('secret_hash'),
        created_at: param('created_at'),
        revoked_at: null
      })
    ),
    list: database.prepare<Record<string, never>, ApiKeySummary>('apiKeys.list', (db) =>
      db.selectFrom('api_keys').select(['id', 'name', 'role', 'created_at', 'revoked_at']).orderBy('created_at').orderBy('id')
    ),
    count: database.prepare<Record<string, never>, { n: number | string }>('apiKeys.count', (db) =>
      db.selectFrom('api_keys').select((eb) => eb.fn.countAll<number>().as('n'))
    ),
    find: database.prepare<{ id: string }, { id: string; role: ApiKeyRole; secret_hash: string; revoked_at: number | null }>(
      'apiKeys.find',
      (db, param) => db.selectFrom('api_keys').select(['id', 'role', 'secret_hash', 'revoked_at']).where('id', '=', param('id'))
    ),
    overwrite: database.prepare<{ id: string; role: ApiKeyRole; secret_hash: string }, never>('apiKeys.overwrite', (db, param) =>
      db
        .updateTable('api_keys')
        .set({ role: param('role'), secret_hash: param('secret_hash'), revoked_at: null })
        .where('id', '=', param('id'))
    ),
    revoke: database.prepare<{ id: string; at: number }, never>('apiKeys.revoke', (db, param) =>
      db
        .updateTable('api_keys')
        .set({ revoked_at: param('at') })
        .where('id', '=', param('id'))
        .where('revoked_at', 'is', null)
    )
  }

  return {
    /** The stored credential of a key id, for authentication (hot path). */
    findForAuth: (id: string) => statements.findForAuth.first({ id }),

    insert: async (tx: Tx, row: NewKey): Promise<void> => {
      await statements.insert.run(row, tx)
    },

    list: (tx: Tx): Promise<ApiKeySummary[]> => statements.list.rows({}, tx),

    count: async (tx: Tx): Promise<number> => Number((await statements.count.first({}, tx))?.n ?? 0),

    find: (tx: Tx, id: string) => statements.find.first({ id }, tx),

    /** Makes the key exactly this role and hash, not revoked. */
    overwrite: async (tx: Tx, id: string, role: ApiKeyRole, secretHash: string): Promise<void> => {
      await statements.overwrite.run({ id, role, secret_hash: secretHash }, tx)
    },

    /** Marks a key revoked; returns false when there is no such key or it was already revoked. */
    revoke: async (tx: Tx, id: string, at: number): Promise<boolean> => (await statements.revoke.run({ id, at }, tx)) === 1
  }
}
