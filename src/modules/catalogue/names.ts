import { invalidField } from '../../platform/problems.js'

/** Literal path segments after /v1/service/ that can never be service names (D-40). */
const RESERVED = new Set(['create', 'add', 'remove', 'stats'])

/** D-40, D-70: a service name is 1 to 100 characters once trimmed. */
const MAX_NAME = 100

/** A service name as stored: trimmed and in Unicode NFC (D-40). */
export function cleanServiceName(raw: string): string {
  return raw.normalize('NFC').trim()
}

/** What names are compared by: unique ignoring case, and how paths find a service (D-40). */
export function serviceNameKey(name: string): string {
  return cleanServiceName(name).toLowerCase()
}

/**
 * The key of a service named in a request body (D-40). D-70 limits names to 100 characters and
 * answers longer text 400, so a name over 100 once trimmed is refused naming `field`, before any
 * lookup; up to that, padding around a name does not stop it from being found.
 */
export function serviceKeyOf(raw: string, field = '/service_name'): string {
  const name = cleanServiceName(raw)
  if ([...name].length > MAX_NAME) throw invalidField(field, `must be at most ${MAX_NAME} characters`)
  return name.toLowerCase()
}

/** Why a cleaned name cannot be used, or undefined when it can (D-40). */
export function serviceNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'must not be empty'
  // Characters as D-70 counts them (code points, as the schemas' maxLength does), after trimming.
  if ([...name].length > MAX_NAME) return `must be at most ${MAX_NAME} characters`
  if (name.includes('/')) return 'must not contain /'
  // The text rule: tabs and line breaks around a name are trimmed; inside it, none.
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return 'must not contain control characters'
  if (RESERVED.has(name.toLowerCase())) return 'must not be create, add, remove or stats'
  // `/v1/service/../1` is `/v1/service/1` to every client that resolves dot segments (RFC 3986
  // §5.2.4): a service so named could not be reached by its path.
  if (name === '.' || name === '..') return 'must not be "." or ".."'
  return undefined
}

/** D-41: the name lower-cased, runs of other characters than a-z and 0-9 turned into `_`. */
export function defaultImageTitle(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '_')
}
