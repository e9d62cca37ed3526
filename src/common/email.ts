/** E-mail addresses are compared and stored trimmed and lower-cased (D-31). */
export function normalizeEmail(raw: string): string {
  return raw.trim().toLowerCase()
}

// The HTML living standard's address grammar, with at least one dot in the domain.
const EMAIL = /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/

/** True for a normalised address we accept: at most 254 characters, local part at most 64. */
export function isValidEmail(email: string): boolean {
  const at = email.indexOf('@')
  return email.length <= 254 && at > 0 && at <= 64 && EMAIL.test(email)
}
