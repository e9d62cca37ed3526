import type { FastifySchemaValidationError } from 'fastify'
import type { FieldError } from './problems.js'
import { type AbsentCode, TEXT_RULE_MESSAGES } from './schemas.js'

type AjvError = FastifySchemaValidationError & {
  params: Record<string, unknown>
  parentSchema?: Record<string, unknown>
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null'
}

function describeTypes(type: unknown): string {
  const types = Array.isArray(type) ? type : [type]
  return types.map((t) => TYPE_NAMES[String(t)] ?? String(t)).join(' or ')
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1')
}

function messageOf(error: AjvError): string {
  const custom = error.parentSchema?.['x-error']
  switch (error.keyword) {
    case 'required':
      return 'is required'
    case 'type':
      return typeof custom === 'string' ? custom : `must be ${describeTypes(error.params.type)}`
    case 'minLength':
      return error.params.limit === 1 ? 'must not be empty' : `must be at least ${String(error.params.limit)} characters`
    case 'maxLength':
      return `must be at most ${String(error.params.limit)} characters`
    case 'minimum':
      return `must be at least ${String(error.params.limit)}`
    case 'maximum':
      return `must be at most ${String(error.params.limit)}`
    case 'minItems':
      return `must have at least ${String(error.params.limit)} entries`
    case 'maxItems':
      return `must have at most ${String(error.params.limit)} entries`
    case 'enum':
      return `must be one of: ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`
    case 'const':
      return `must be ${JSON.stringify(error.params.allowedValue)}`
    case 'pattern':
      // The text rule's two patterns (schemas.ts) say what is wrong whatever else the field's x-error says.
      return TEXT_RULE_MESSAGES[String(error.params.pattern)] ?? (typeof custom === 'string' ? custom : 'is not in the expected format')
    case 'format':
      return typeof custom === 'string' ? custom : 'is not in the expected format'
    case 'additionalProperties':
      return 'is not a known field'
    default:
      return typeof custom === 'string' ? custom : 'is not valid'
  }
}

/** True for the error of a key that cannot exist: control characters in an id or name (schemas.ts `Key`). */
function isAbsentKey(error: AjvError): boolean {
  return error.keyword === 'pattern' && typeof error.parentSchema?.['x-absent'] === 'string'
}

/**
 * The not-found code to answer when the only faults are keys that cannot exist (an id or name
 * holding control characters names no record: 404 as for an unknown one); else undefined.
 */
export function absentKeyCode(errors: readonly FastifySchemaValidationError[]): AbsentCode | undefined {
  const raw = errors as readonly AjvError[]
  if (raw.length === 0 || !raw.every(isAbsentKey)) return undefined
  return raw[0]!.parentSchema!['x-absent'] as AbsentCode
}

/**
 * Turns schema validation errors into D-20 `errors` entries: one per field, a JSON pointer and a
 * sentence. Never includes the offending value (it may be card data).
 */
export function toFieldErrors(errors: readonly FastifySchemaValidationError[], context: string | undefined): FieldError[] {
  const prefix = context === undefined || context === 'body' ? '' : `/${context}`
  const byField = new Map<string, FieldError>()
  const keywords = new Map<string, string>()
  for (const raw of errors as readonly AjvError[]) {
    // A key that cannot exist is no fault of its own: alone it is a 404 (absentKeyCode); beside real faults, only those are listed.
    if (isAbsentKey(raw)) continue
    let field = raw.instancePath
    if (raw.keyword === 'required') field += `/${escapePointer(String(raw.params.missingProperty))}`
    if (raw.keyword === 'additionalProperties') field += `/${escapePointer(String(raw.params.additionalProperty))}`
    field = prefix + field
    // Union members each report a failure; the first specific message per field is the useful one.
    if (raw.keyword === 'anyOf' || raw.keyword === 'oneOf') {
      if (!byField.has(field)) {
        byField.set(field, { field, message: messageOf(raw) })
        keywords.set(field, raw.keyword)
      }
      continue
    }
    const existing = byField.get(field)
    if (existing === undefined || existing.message === 'is not valid') {
      byField.set(field, { field, message: messageOf(raw) })
      keywords.set(field, raw.keyword)
    }
  }
  // A value a union branch went inside (`{"event": 5}` for "a string or {event}") also fails the
  // other branch's type check at the value itself; that "must be a string" is not the value's
  // problem, the field inside it is. A type error at a field never has errors below it otherwise.
  const fields = [...byField.keys()]
  return [...byField.values()].filter((error) => {
    const keyword = keywords.get(error.field)
    const shallow = keyword === 'type' || keyword === 'anyOf' || keyword === 'oneOf'
    return !(shallow && fields.some((other) => other.startsWith(`${error.field}/`)))
  })
}
