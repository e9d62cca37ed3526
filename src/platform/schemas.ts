import type { FastifySchema } from 'fastify'
import Type, { type TSchema } from 'typebox'
import { BODY_LIMIT } from './body-parsers.js'
import { Ref } from './components.js'
import { PROBLEM_STATUS, type ProblemCode } from './problems.js'

/**
 * The text rule: no text field holds C0 or C1 control characters or DEL, except that free text
 * may hold tabs and line breaks (`\t`, `\n`, `\r`). Such characters have no use in any field,
 * break logs and e-mails, and PostgreSQL cannot store NUL at all (it failed the whole request).
 * Nor may text hold an unpaired UTF-16 surrogate (JSON can escape one, `"\\ud800"`): it is no
 * character, and each database stored it differently (SQLite three U+FFFD, PostgreSQL one), so the
 * answer echoed one text and later reads another. Ajv matches patterns in Unicode mode, where a
 * paired surrogate is one code point outside U+D800 to U+DFFF and only an unpaired one matches.
 * A field breaking the rule is 400 `validation_failed`; an id or name that looks something up and
 * breaks it names nothing, so it is answered like an unknown one (404, see `Key`).
 */
export const TEXT_PATTERN = '^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F\\uD800-\\uDFFF]*$'
/** One line of text: no control characters at all (nor unpaired surrogates). */
export const LINE_PATTERN = '^[^\\u0000-\\u001F\\u007F-\\u009F\\uD800-\\uDFFF]*$'

/**
 * The schema bound of text whose limit its service checks after trimming (names, e-mail addresses,
 * the search query): no body holds more, so the limit the client is told is the service's.
 */
export const UNTRIMMED_TEXT_BOUND = BODY_LIMIT

interface TextOptions {
  minLength?: number
  description?: string
  /** Rules the service checks itself, written into the published document only (openapi-complete.ts). */
  'x-doc-enum'?: readonly string[]
  'x-doc-maxLength'?: number
  'x-doc-pattern'?: string
}

/**
 * The `x-` keywords route schemas carry, which Ajv must know (app.ts): messages (`x-error`), absent
 * keys (`Key`), callers (auth.ts) and the `x-doc-` rules only the published document states.
 */
export const SCHEMA_KEYWORDS: readonly string[] = [
  'x-error',
  'x-callers',
  'x-absent',
  'x-doc-enum',
  'x-doc-required',
  'x-doc-maxLength',
  'x-doc-pattern'
]

/** Free text up to `maxLength` characters (D-70 limits); tabs and line breaks allowed, no other control characters. */
export function Text(maxLength: number, options: TextOptions = {}) {
  return Type.String({ maxLength, pattern: TEXT_PATTERN, ...options })
}

/** One line of text up to `maxLength` characters: titles, tokens, passwords; no control characters. */
export function Line(maxLength: number, options: TextOptions = {}) {
  return Type.String({ maxLength, pattern: LINE_PATTERN, ...options })
}

/** What a field breaking the text rule is told (validation-errors.ts knows the two patterns). */
export const TEXT_RULE_MESSAGES: Readonly<Record<string, string>> = {
  [TEXT_PATTERN]: 'must not contain control characters other than tabs and line breaks, nor unpaired surrogates',
  [LINE_PATTERN]: 'must not contain control characters nor unpaired surrogates'
}

/** The not-found codes a key that cannot exist is answered with (`Key`). */
export type AbsentCode =
  | 'customer_not_found'
  | 'service_not_found'
  | 'transaction_not_found'
  | 'item_not_found'
  | 'item_not_on_receipt'
  | 'staff_not_found'

/**
 * An id or name that looks a record up, from a path or a body. One holding control characters can
 * name no record (none is ever stored with them), so it is answered with `notFound` exactly as an
 * unknown one, instead of being sent to the database (error-handler.ts reads `x-absent`).
 */
export function Key(notFound: AbsentCode, maxLength: number, options: TextOptions = {}) {
  // Tabs and line breaks pass: names are trimmed before they are looked up, and they cannot hurt a query.
  return Type.String({ maxLength, pattern: TEXT_PATTERN, 'x-absent': notFound, ...options })
}

/**
 * An id or name in a path. It has no length limit of its own (the request line has one,
 * HTTP_MAX_HEADER_SIZE): an id of any length that names no record is answered with `notFound`,
 * as D-21 answers an unknown one, not with a 400 for a field the client did not write as one.
 */
export function PathKey(notFound: AbsentCode, options: TextOptions = {}) {
  return Type.String({ pattern: TEXT_PATTERN, 'x-absent': notFound, ...options })
}

/**
 * An item id: numeric text or a number (D-30, D-45); anything else names no item, answered with
 * `notFound`: `item_not_found`, or `item_not_on_receipt` where the id is looked up on a receipt.
 */
export function ItemKey(
  description = 'The item id: numeric text (a number is accepted too).',
  notFound: 'item_not_found' | 'item_not_on_receipt' = 'item_not_found'
) {
  return Type.Unsafe<string | number>({
    type: ['string', 'integer'],
    maxLength: 20,
    pattern: TEXT_PATTERN,
    'x-absent': notFound,
    description
  })
}

/** An opaque identifier from a body (D-30); one that cannot exist is `notFound`. */
export function Identifier(notFound: AbsentCode, description = 'An opaque identifier.') {
  return Key(notFound, 64, { minLength: 1, description })
}

/** A whole number sent either as a JSON number or as digit text (the spec allows both). */
export function WholeNumberOrDigits(minimum: number, maximum: number, description?: string) {
  return Type.Unsafe<number | string>({
    type: ['integer', 'string'],
    minimum,
    maximum,
    // Applies to the text form only; its range is checked by the service.
    pattern: '^[0-9]{1,20}$',
    'x-error': 'must be a whole number, as a number or as digit text',
    ...(description === undefined ? {} : { description })
  })
}

/**
 * A 200 answer that is not JSON (a page, the metrics), as the document describes it: its media type
 * and a description. The payload is sent as it is (a string or a file), never through a serialiser.
 */
export function textAnswer(description: string, mediaType: string) {
  return { description, content: { [mediaType]: { schema: { type: 'string' } } } }
}

/** One fault of a request (D-20): where, as a JSON pointer, and what is wrong. */
const ValidationError = Type.Object(
  {
    field: Type.String({ description: 'JSON pointer to the offending field; empty for the request as a whole.' }),
    message: Type.String({ description: 'What is wrong, for a person.' })
  },
  { $id: 'ValidationError', description: 'One fault of a request (D-20).' }
)

/** The RFC 9457 problem document every error is answered with (D-20); one component, each response narrows `code`. */
const ProblemSchema = Type.Object(
  {
    type: Type.String({ pattern: '^/problems/[a-z_]+$', description: '`/problems/<code>`' }),
    title: Type.String({ description: 'The HTTP reason phrase.' }),
    status: Type.Integer({ minimum: 400, maximum: 599 }),
    detail: Type.String({ description: 'One sentence for a person.' }),
    code: Type.Unsafe<ProblemCode>({
      type: 'string',
      enum: Object.keys(PROBLEM_STATUS),
      description: 'The stable code a client branches on; the codes of a response are listed with it.'
    }),
    errors: Type.Optional(Type.Array(Ref(ValidationError), { description: 'With `validation_failed`: every fault found.' }))
  },
  { $id: 'Problem', description: 'An RFC 9457 problem document (D-20).' }
)

/** The named schemas of every problem response; registered once for the whole app (error-handler.ts). */
export const PROBLEM_SCHEMAS: readonly TSchema[] = [ValidationError, ProblemSchema]

/**
 * What the connection layer answers before any route is chosen, so every path may meet it: a
 * request HTTP/1.x cannot parse is 400, headers past their limit 431, a request too slow to arrive 408 (http-limits.ts).
 */
export const CONNECTION_PROBLEMS: readonly ProblemCode[] = ['validation_failed', 'request_timeout', 'headers_too_large']

/** Codes any operation can answer with. */
const COMMON_PROBLEMS: readonly ProblemCode[] = [...CONNECTION_PROBLEMS, 'rate_limited', 'internal', 'unavailable']

/** Codes any route that reads a JSON body can answer with. */
const BODY_PROBLEMS: readonly ProblemCode[] = ['invalid_json', 'validation_failed', 'payload_too_large', 'unsupported_media_type']

/**
 * Where a problem response lists its codes (`code` narrowed to them in the published document,
 * openapi-complete.ts): the schema itself is a bare reference, which Fastify and the document share.
 */
export const PROBLEM_CODES = 'x-problem-codes'

interface ProblemResponse {
  description: string
  content: { 'application/problem+json': { schema: TSchema; [PROBLEM_CODES]: ProblemCode[] } }
}

/** The `responses` entries for a list of problem codes, grouped by status, as OpenAPI shows them. */
export function problemResponses(codes: readonly ProblemCode[]): Record<number, ProblemResponse> {
  const byStatus = new Map<number, ProblemCode[]>()
  for (const code of new Set(codes)) {
    const status = PROBLEM_STATUS[code]
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  const responses: Record<number, ProblemResponse> = {}
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[status] = {
      description: `Problem codes: ${statusCodes.map((c) => `\`${c}\``).join(', ')}.`,
      content: { 'application/problem+json': { schema: Ref(ProblemSchema), [PROBLEM_CODES]: statusCodes } }
    }
  }
  return responses
}

/** D-52: an Idempotency-Key is 1 to 255 visible ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7E]{1,255}$'

/** The header a state-changing operation may be sent with (D-52). */
const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: IDEMPOTENCY_KEY_PATTERN,
      description:
        'Makes a retry safe (D-52): a repeat with the same key, path and body within 24 hours returns the first response and changes nothing; the same key with another path or body is 422.',
      'x-error': 'must be 1 to 255 visible ASCII characters'
    })
  )
})

export interface OperationSpec<B extends TSchema | undefined, P extends TSchema | undefined, R extends TSchema> {
  id: string
  summary: string
  description?: string
  tags: readonly string[]
  body?: B
  params?: P
  response: R
  /** Codes particular to this operation; body, auth and common codes are added for it. */
  problems: readonly ProblemCode[]
  idempotent?: boolean
}

/** The schema type Fastify's TypeBox provider infers request and reply types from. */
export type OperationSchema<B, P, R> = FastifySchema & { response: { 200: R } } & (B extends TSchema ? { body: B } : unknown) &
  (P extends TSchema ? { params: P } : unknown)

/** The full Fastify/OpenAPI schema of one operation: body, answers and every problem it may give. */
export function operation<
  B extends TSchema | undefined = undefined,
  P extends TSchema | undefined = undefined,
  R extends TSchema = TSchema
>(spec: OperationSpec<B, P, R>): OperationSchema<B, P, R> {
  const codes: ProblemCode[] = [...spec.problems, ...COMMON_PROBLEMS]
  // An operation without a body ignores whatever body it is sent (D-23): no body can fail it.
  if (spec.body !== undefined) codes.push(...BODY_PROBLEMS)
  // A path whose percent-encoding cannot be decoded (`%ZZ`) reaches no route at all.
  if (spec.params !== undefined) codes.push('route_not_found')
  if (spec.idempotent === true) codes.push('idempotency_key_reused')
  const schema: FastifySchema & Record<string, unknown> = {
    operationId: spec.id,
    summary: spec.summary,
    tags: [...spec.tags],
    response: { 200: spec.response, ...problemResponses(codes) }
  }
  if (spec.description !== undefined) schema.description = spec.description
  if (spec.body !== undefined) schema.body = spec.body
  if (spec.params !== undefined) schema.params = spec.params
  if (spec.idempotent === true) schema.headers = IdempotencyHeaders
  return schema as OperationSchema<B, P, R>
}

/** Adds problem codes to an operation's schema after the fact (the access scope adds 401 and 403). */
export function addProblems(schema: FastifySchema, codes: readonly ProblemCode[]): void {
  const response = (schema.response ?? {}) as Record<number, Partial<ProblemResponse>>
  const existing: ProblemCode[] = []
  for (const entry of Object.values(response)) existing.push(...(entry.content?.['application/problem+json']?.[PROBLEM_CODES] ?? []))
  const merged = problemResponses([...existing, ...codes])
  ;(schema as { response: unknown }).response = { 200: response[200], ...merged }
}
