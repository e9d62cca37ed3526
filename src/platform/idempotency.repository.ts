import type { StatementCompiler } from '../db/statement.js'

/** The statements of the kept Idempotency-Keys (D-52), compiled once per database. */
export type IdempotencyStatements = ReturnType<typeof idempotencyStatements>

/** SQL of the `idempotency_keys` table, which platform/idempotency.ts alone writes. */
export function idempotencyStatements(database: StatementCompiler) {
  type Key = { owner: string; key: string }
  type Row = Key & { fingerprint: string; status_code: number; response: string; created_at: number }
  return {
    claim: database.prepare<Row, unknown>('idempotency.claim', (db, param) =>
      db
        .insertInto('idempotency_keys')
        .values({
          owner: param('owner'),
          key: param('key'),
          fingerprint: param('fingerprint'),
          status_code: param('status_code'),
          response: param('response'),
          created_at: param('created_at')
        })
        .onConflict((oc) => oc.columns(['owner', 'key']).doNothing())
    ),
    find: database.prepare<Key, Omit<Row, 'owner' | 'key'>>('idempotency.find', (db, param) =>
      db
        .selectFrom('idempotency_keys')
        .select(['fingerprint', 'status_code', 'response', 'created_at'])
        .where('owner', '=', param('owner'))
        .where('key', '=', param('key'))
    ),
    overwrite: database.prepare<Row, unknown>('idempotency.overwrite', (db, param) =>
      db
        .updateTable('idempotency_keys')
        .set({
          fingerprint: param('fingerprint'),
          status_code: param('status_code'),
          response: param('response'),
          created_at: param('created_at')
        })
        .where('owner', '=', param('owner'))
        .where('key', '=', param('key'))
    ),
    purge: database.prepare<{ before: number }, unknown>('idempotency.purge', (db, param) =>
      db.deleteFrom('idempotency_keys').where('created_at', '<', param('before'))
    )
  }
}
