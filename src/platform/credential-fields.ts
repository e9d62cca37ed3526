import type { preValidationHookHandler } from 'fastify'
import { EMAIL_MESSAGE, isValidEmail, normalizeEmail } from '../common/email.js'
import { invalidField } from './problems.js'
import { Line, Text, UNTRIMMED_TEXT_BOUND } from './schemas.js'

// The fields of the two kinds of people who sign in, customers (D-31, D-37) and staff users (D-15):
// the same e-mail and password rules for both.

/** D-31: the limit of an e-mail address, counted after trimming. */
export const EMAIL_MAX = 254

/**
 * An e-mail address as sent; trimmed, lower-cased and checked by the service (`emailOf`). Tabs and
 * line breaks around it are trimmed like spaces, so the schema lets them through (free text).
 */
export function Email(
  description = 'Trimmed and lower-cased; ASCII, at most 254 characters, local part at most 64, its dots each between two other characters (RFC 5321 dot-string), domain host names with at least one dot (D-31).'
) {
  // The 254 apply to the trimmed address (checked by the service): the document states them.
  return Text(UNTRIMMED_TEXT_BOUND, { description, 'x-doc-maxLength': EMAIL_MAX })
}

/** An e-mail address trimmed and lower-cased, or a 400 naming `field` (D-31). */
export function emailOf(raw: string, field: string): string {
  const email = normalizeEmail(raw)
  if (!isValidEmail(email)) throw invalidField(field, EMAIL_MESSAGE)
  return email
}

/**
 * A password as set (D-31, D-37, D-15). No control characters: Basic credentials cannot carry
 * them (RFC 7617), so such a password could never be used.
 */
export function NewPassword(description = '8 to 128 characters, no control characters.') {
  // Passwords are compared in Unicode NFKC (common/crypto.ts), whatever form a keyboard sends.
  return Line(128, {
    minLength: 8,
    description: `${description} Counted and compared in Unicode NFKC: the same visible password matches in any normalisation form.`
  })
}

/**
 * A new password is validated and stored in Unicode NFKC, the form passwords are compared in
 * (common/crypto.ts): its 8 to 128 characters are those of the password as compared, whatever form
 * the keyboard sent (seven "ë" sent decomposed are 14 code points, but seven characters).
 */
export const passwordInNfkc: preValidationHookHandler = (request, _reply, done) => {
  const body = request.body as { password?: unknown } | null | undefined
  if (typeof body === 'object' && body !== null && typeof body.password === 'string') body.password = body.password.normalize('NFKC')
  done()
}
