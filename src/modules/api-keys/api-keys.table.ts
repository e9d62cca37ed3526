import type { ApiKeyRole } from '../../platform/principal.js'

export type { ApiKeyRole }

/** `api_keys`: credentials for staff, admins and customer-facing apps; secrets only as SHA-256. */
export interface ApiKeysTable {
  id: string
  name: string
  role: ApiKeyRole
  secret_hash: string
  created_at: number
  revoked_at: number | null
}
