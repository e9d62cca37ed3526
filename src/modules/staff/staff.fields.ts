import { invalidField } from '../../platform/problems.js'

/** D-15: a staff user's name is 1 to 100 characters. */
export const STAFF_NAME_MAX = 100

/** A name as stored (NFC, trimmed, runs of white space one space), or a 400 naming `field` (D-15). */
export function staffNameOf(raw: string, field: string): string {
  const name = raw.normalize('NFC').trim().replace(/\s+/g, ' ')
  const length = [...name].length
  if (length < 1 || length > STAFF_NAME_MAX) throw invalidField(field, `must be 1 to ${STAFF_NAME_MAX} characters`)
  return name
}
