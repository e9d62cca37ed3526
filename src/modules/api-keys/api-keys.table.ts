/** Roles an API key may hold (D-10). */
export type ApiKeyRole = 'admin' | 'staff' | 'app'

/** `api_keys`: credentials for staff, admins and customer-facing apps; secrets only as SHA-256. */
export interface ApiKeysTable {
  id: string
  name: string
  role: ApiKeyRole
  secret_hash: string
  created_at: number
  revoked_at: number | null
}
