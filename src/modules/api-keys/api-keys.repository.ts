import type { Kysely } from 'kysely'
import { prepare } from '../../db/prepared.js'
import type { QueryRunner } from '../../db/query-runner.js'
import type { DB } from '../../db/schema.js'
import type { ApiKeyRole } from './api-keys.table.js'

/** A key as listed: never its secret or hash. */
export interface ApiKeySummary {
  id: string
  name: string
  role: ApiKeyRole
  created_at: number
  revoked_at: number | null
}

/** SQL of the api_keys table; queries compiled once per database. */
export function apiKeysRepository(db: Kysely<DB>) {
  const findForAuth = prepare<{ id: string }, { role: ApiKeyRole; secret_hash: string; revoked_at: number | null }>(db, (db, p) =>
    db.selectFrom('api_keys').select(['role', 'secret_hash', 'revoked_at']).where('id', '=', p('id'))
  )
  return {
    /** The stored credential of a key id, for authentication (hot path). */
    findForAuth: (runner: QueryRunner, id: string) => findForAuth.first(runner, { id }),

    insert: async (trx: Kysely<DB>, row: { id: string; name: string; role: ApiKeyRole; secret_hash: string; created_at: number }) => {
      await trx
        .insertInto('api_keys')
        .values({ ...row, revoked_at: null })
        .execute()
    },

    list: (trx: Kysely<DB>): Promise<ApiKeySummary[]> =>
      trx.selectFrom('api_keys').select(['id', 'name', 'role', 'created_at', 'revoked_at']).orderBy('created_at').orderBy('id').execute(),

    count: async (trx: Kysely<DB>): Promise<number> => {
      const row = await trx
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
      return Number(row.n)
    },

    find: (trx: Kysely<DB>, id: string) =>
      trx.selectFrom('api_keys').select(['id', 'role', 'secret_hash', 'revoked_at']).where('id', '=', id).executeTakeFirst(),

    /** Makes the key exactly this role and hash, not revoked. */
    overwrite: async (trx: Kysely<DB>, id: string, role: ApiKeyRole, secretHash: string) => {
      await trx.updateTable('api_keys').set({ role, secret_hash: secretHash, revoked_at: null }).where('id', '=', id).execute()
    },

    /** Marks a key revoked; returns false when there is no such key or it was already revoked. */
    revoke: async (trx: Kysely<DB>, id: string, at: number): Promise<boolean> => {
      const result = await trx
        .updateTable('api_keys')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) === 1
    }
  }
}

export type ApiKeysRepository = ReturnType<typeof apiKeysRepository>
