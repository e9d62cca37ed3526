/** E-mail addresses are compared and stored trimmed and lower-cased (D-31). */
export function normalizeEmail(raw: string): string {
  return raw.trim().toLowerCase()
}

// An ASCII address: the local part an RFC 5321 dot-string (atoms joined by single dots: no
// leading, trailing or double dot, which mail servers refuse), the domain host names with at
// least one dot. Stricter than the HTML standard's grammar, which lets such dots through.
const ATOM = "[a-z0-9!#$%&'*+/=?^_`{|}~-]+"
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?'
const EMAIL = new RegExp(`^${ATOM}(?:\\.${ATOM})*@${LABEL}(?:\\.${LABEL})+$`)

/** What a client is told of an address we do not accept (D-31). */
export const EMAIL_MESSAGE = 'must be an e-mail address like name@example.com, in ASCII, of at most 254 characters'

/** True for a normalised address we accept: at most 254 characters, local part at most 64. */
export function isValidEmail(email: string): boolean {
  const at = email.indexOf('@')
  return email.length <= 254 && at > 0 && at <= 64 && EMAIL.test(email)
}
