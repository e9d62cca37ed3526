/** `idempotency_keys`: the first answer to each key, per credential, for 24 hours (D-52). */
export interface IdempotencyKeysTable {
  owner: string
  key: string
  fingerprint: string
  status_code: number
  response: string
  created_at: number
}
