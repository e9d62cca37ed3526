import { problems } from '../../platform/problems.js'
import type { Place, ZipDirectory } from './zip-codes.js'

/** D-70 "names 100": `customer_name` as a whole (so each of first and last name too). */
export const NAME_MAX = 100

/** A name as stored: NFC, trimmed, runs of white space made one space. */
export function cleanText(raw: string): string {
  return raw.normalize('NFC').trim().replace(/\s+/g, ' ')
}

/** D-32: the full name split at the first space: first word, then the rest; empty clears both. */
export function splitName(raw: string): { first_name: string; last_name: string } {
  const name = cleanText(raw)
  const space = name.indexOf(' ')
  return space === -1 ? { first_name: name, last_name: '' } : { first_name: name.slice(0, space), last_name: name.slice(space + 1) }
}

/**
 * Why a full name cannot be stored, or undefined. D-70 limits names to 100 characters, and the
 * name the wire carries is `customer_name`: it is counted whole, in characters (code points), after
 * the clean-up it is stored with (NFC, trimmed, one space between words).
 */
export function nameProblem(fullName: string): string | undefined {
  return [...cleanText(fullName)].length > NAME_MAX ? `must be at most ${NAME_MAX} characters` : undefined
}

/**
 * D-32: a phone number as 7 to 15 digits, from a JSON number or from text of digits that may be
 * grouped with spaces, dots, hyphens or parentheses and start with `+`. Empty text clears it.
 * Undefined when it is not a phone number.
 */
export function phoneDigits(value: number | string): string | undefined {
  if (typeof value === 'string' && value.trim() === '') return ''
  const digits =
    typeof value === 'number'
      ? Number.isSafeInteger(value) && value >= 0
        ? String(value)
        : ''
      : /^\+?[0-9 ().-]+$/.test(value.trim())
        ? value.replace(/[^0-9]/g, '')
        : ''
  return digits.length >= 7 && digits.length <= 15 ? digits : undefined
}

/** City and state of a zip, or 400 `unknown_zip` naming `field` (D-31). The form was checked by schema. */
export function placeOf(zips: ZipDirectory, zip: string, field: string): Place {
  const place = zips.placeOf(zip)
  if (place === undefined) throw problems.unknownZip(field)
  return place
}
