import type { Kysely } from 'kysely'
import { hmac } from '../../common/crypto.js'
import type { DB } from '../../db/schema.js'
import { dataKeyRepository } from './data-key.repository.js'

/** What identifies a key without telling anything about it: an HMAC of a fixed text under it. */
export function dataKeyFingerprint(key: Buffer): string {
  return hmac(key, 'service-ordering data key fingerprint').toString('hex').slice(0, 32)
}

/**
 * Makes sure this process seals and unseals with the key the database was first used with (D-34):
 * the first process records the key's fingerprint; one with another key (another
 * CARD_ENCRYPTION_KEY, or another DATA_DIR's generated card-key) refuses to start. Such a process
 * would seal cards beside the others' and answer their tracking links and idempotency keys as unknown.
 */
export async function checkDataKey(db: Kysely<DB>, key: Buffer): Promise<void> {
  const fingerprint = dataKeyFingerprint(key)
  const dataKey = dataKeyRepository(db)
  await dataKey.recordFirst(fingerprint)
  if ((await dataKey.recorded()) !== fingerprint) {
    throw new Error(
      'the data key (CARD_ENCRYPTION_KEY, or DATA_DIR/card-key when it is unset) is not the one this database was first used with: every process sharing a database must use the same key'
    )
  }
}
