import { PROBLEM_CODES } from './schemas.js'

/**
 * What the route schemas cannot say, written into the generated OpenAPI document: the response
 * headers the server sends (`X-Request-Id` and `X-Content-Type-Options` on every answer, D-73,
 * `Cache-Control: no-store` on every `/v1` and POST answer; the Basic challenge on every 401, D-11; `Retry-After` on 429 and 503, D-14, D-21),
 * each defined once under `components.headers`; that an operation outside every callers scope
 * (auth.ts) takes no credentials (`security: []`); the codes each problem response narrows the
 * shared `Problem` to; that a body with no required field may be left out (@fastify/swagger marks
 * every request body required); and the rules a schema marks `x-doc-<keyword>`: ones the service
 * checks itself, with its own messages (event names, D-41), or the serialiser must not see (`required` reorders fields).
 */

interface HeaderObject {
  description: string
  schema: { type: 'string' }
}

type Media = { schema?: Record<string, unknown>; [PROBLEM_CODES]?: string[] }
type Responses = Record<string, { headers?: Record<string, unknown>; content?: Record<string, Media> }>
type RequestBody = { required?: boolean; content?: Record<string, { schema?: { required?: string[] } }> }
type Operation = { responses?: Responses; requestBody?: RequestBody; security?: unknown[] }
type Document = {
  paths?: Record<string, Record<string, Operation> | undefined>
  components?: { headers?: Record<string, HeaderObject> }
}

const REQUEST_ID: HeaderObject = {
  description:
    'The id of this request in the server log: the `X-Request-Id` it was sent with when that is 1 to 128 of `A-Z a-z 0-9 . _ : -`, else a new UUID (D-73).',
  schema: { type: 'string' }
}

const EVERY_ANSWER: Readonly<Record<string, HeaderObject>> = {
  'X-Request-Id': REQUEST_ID,
  'X-Content-Type-Options': { description: 'Always `nosniff`.', schema: { type: 'string' } }
}

/** Sent on every `/v1` answer and every answer to a POST (request-context.ts). */
const NOT_CACHED: Readonly<Record<string, HeaderObject>> = {
  'Cache-Control': { description: 'Always `no-store`: the answer depends on credentials or changes state.', schema: { type: 'string' } }
}

const DOC_PREFIX = 'x-doc-'

/** Turns each `x-doc-<keyword>` of a schema, at any depth, into `<keyword>`. */
function publishDocRules(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) publishDocRules(item)
    return
  }
  if (node === null || typeof node !== 'object') return
  const object = node as Record<string, unknown>
  for (const key of Object.keys(object)) {
    if (key.startsWith(DOC_PREFIX)) {
      object[key.slice(DOC_PREFIX.length)] = object[key]
      delete object[key]
    } else {
      publishDocRules(object[key])
    }
  }
}

const BY_STATUS: Readonly<Record<string, Record<string, HeaderObject>>> = {
  401: {
    'WWW-Authenticate': {
      description:
        '`Basic realm="service-ordering", charset="UTF-8"` (D-11); `Session realm="service-ordering"` for a console sign-in or session refused (D-16), so that browsers do not ask for Basic credentials over the console.',
      schema: { type: 'string' }
    }
  },
  415: {
    'Accept-Encoding': {
      description: 'Sent as `identity` when the body came with a `Content-Encoding`: bodies are read uncompressed only.',
      schema: { type: 'string' }
    }
  },
  429: { 'Retry-After': { description: 'Seconds until the limit lets the call through again (D-14).', schema: { type: 'string' } } },
  503: { 'Retry-After': { description: 'Seconds to wait before trying again (D-21).', schema: { type: 'string' } } }
}

/** The name under `components.headers` of a header sent on answers of `status` (any status: ''). */
const componentName = (header: string, status: string) => (status === '' ? header : `${header}-${status}`)

/** The headers of the answers of one status, each a reference to its component. */
function headerRefs(cached: boolean, status: string): Record<string, { $ref: string }> {
  const refs: Record<string, { $ref: string }> = {}
  const add = (headers: Readonly<Record<string, HeaderObject>>, scope: string) => {
    for (const header of Object.keys(headers)) refs[header] = { $ref: `#/components/headers/${componentName(header, scope)}` }
  }
  add(EVERY_ANSWER, '')
  if (cached) add(NOT_CACHED, '')
  add(BY_STATUS[status] ?? {}, status)
  return refs
}

/** Every header above, by its component name. */
function headerComponents(): Record<string, HeaderObject> {
  const components: Record<string, HeaderObject> = {}
  for (const [header, object] of Object.entries({ ...EVERY_ANSWER, ...NOT_CACHED })) components[componentName(header, '')] = object
  for (const [status, headers] of Object.entries(BY_STATUS)) {
    for (const [header, object] of Object.entries(headers)) components[componentName(header, status)] = object
  }
  return components
}

/** Narrows the shared `Problem` of a problem response to the codes it lists (schemas.ts `problemResponses`). */
function narrowProblem(media: Media | undefined): void {
  const codes = media?.[PROBLEM_CODES]
  if (media === undefined || codes === undefined) return
  media.schema = { ...media.schema, properties: { code: { enum: codes } } }
  delete media[PROBLEM_CODES]
}

/** Completes the document as the comment at the top says; returns the same document. */
export function completeDocument<T extends object>(document: T): T {
  const complete = document as Document
  complete.components = { ...complete.components, headers: headerComponents() }
  for (const [path, operations] of Object.entries(complete.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations ?? {})) {
      // D-71, D-37: only a callers scope (auth.ts) sets `security`; every other route is open.
      operation.security ??= []
      const cached = method === 'post' || path.startsWith('/v1/')
      const body = operation.requestBody
      const schema = body?.content?.['application/json']?.schema
      if (body !== undefined && schema !== undefined && (schema.required ?? []).length === 0) body.required = false
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        response.headers = { ...response.headers, ...headerRefs(cached, status) }
        narrowProblem(response.content?.['application/problem+json'])
      }
    }
  }
  publishDocRules(document)
  return document
}
