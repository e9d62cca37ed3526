import type { Kysely } from 'kysely'
import type { DB } from '../../db/schema.js'

/** SQL of the `data_key` table: the fingerprint of the key the database was first used with (D-34). */
export function dataKeyRepository(db: Kysely<DB>) {
  return {
    /** Records this fingerprint unless one is recorded already. */
    recordFirst: async (fingerprint: string): Promise<void> => {
      await db
        .insertInto('data_key')
        .values({ id: 1, fingerprint })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute()
    },

    /** The fingerprint recorded first. */
    recorded: async (): Promise<string> =>
      (await db.selectFrom('data_key').select('fingerprint').where('id', '=', 1).executeTakeFirstOrThrow()).fingerprint
  }
}
