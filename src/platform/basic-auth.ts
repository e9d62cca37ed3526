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
