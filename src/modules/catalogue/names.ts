/** Literal path segments after /v1/service/ that can never be service names (D-40). */
const RESERVED = new Set(['create', 'add', 'remove', 'stats'])

/** A service name as stored: trimmed and in Unicode NFC (D-40). */
export function cleanServiceName(raw: string): string {
  return raw.normalize('NFC').trim()
}

/** What names are compared by: unique ignoring case, and how paths find a service (D-40). */
export function serviceNameKey(name: string): string {
  return cleanServiceName(name).toLowerCase()
}

/** Why a cleaned name cannot be used, or undefined when it can (D-40). */
export function serviceNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'must not be empty'
  // Characters as D-70 counts them (code points, as the schemas' maxLength does), after trimming.
  if ([...name].length > 100) return 'must be at most 100 characters'
  if (name.includes('/')) return 'must not contain /'
  // The text rule (issue 8): tabs and line breaks around a name are trimmed; inside it, none.
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'must not contain control characters'
  if (RESERVED.has(name.toLowerCase())) return 'must not be create, add, remove or stats'
  return undefined
}

/** D-41: the name lower-cased, runs of other characters than a-z and 0-9 turned into `_`. */
export function defaultImageTitle(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '_')
}
