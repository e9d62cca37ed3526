import { constantTimeEqual, sha256Hex } from '../common/crypto.js'
import type { ApiKeyRole, Principal } from './principal.js'
import { problems } from './problems.js'

/** User name and password from an `Authorization: Basic …` header. */
export interface BasicCredentials {
  user: string
  password: string
}

/** Reads Basic credentials (RFC 7617); undefined for a missing or malformed header. */
export function parseBasicAuthorization(header: string | undefined): BasicCredentials | undefined {
  if (header === undefined || header.length > 4096) return undefined
  const match = /^Basic[ \t]+([A-Za-z0-9+/=._~-]+)[ \t]*$/i.exec(header)
  if (match === null) return undefined
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon <= 0) return undefined
  // RFC 7617: user-id and password never hold control characters. A NUL also made PostgreSQL
  // fail the key lookup (500 instead of 401).
  if (/[\u0000-\u001f\u007f]/.test(decoded)) return undefined
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}

/** An API key as stored (D-10): its secret only as SHA-256. */
export type StoredApiKey = { role: ApiKeyRole; name: string; secret_hash: string; revoked_at: number | null }

// Compared against when the key id is unknown, so a miss does the same work as a wrong secret.
const UNKNOWN_KEY_HASH = sha256Hex('no such key')

/** The principal of an API key's credentials, given the stored key (undefined: no such key); else 401. */
export function keyPrincipal(credentials: BasicCredentials, key: StoredApiKey | undefined): Principal {
  // The hash is compared even for an unknown key, so a miss costs what a wrong secret costs.
  const matches = constantTimeEqual(sha256Hex(credentials.password), key?.secret_hash ?? UNKNOWN_KEY_HASH)
  if (key === undefined || key.revoked_at !== null || !matches) throw problems.unauthenticated()
  return { kind: 'key', role: key.role, keyId: credentials.user, name: key.name }
}
