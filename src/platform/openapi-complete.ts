/**
 * What the route schemas cannot say, written into the generated OpenAPI document: the response
 * headers the server sends (`X-Request-Id` and `X-Content-Type-Options` on every answer, D-73,
 * `Cache-Control: no-store` on every `/v1` and POST answer; the Basic challenge on every 401, D-11; `Retry-After` on 429 and 503, D-14, D-21),
 * that a body with no required field may be left out (@fastify/swagger marks every request body
 * required), and the rules a schema marks `x-doc-<keyword>`: ones the service checks itself, with
 * its own messages (event names, D-41), or the serialiser must not see (`required` reorders fields).
 */

interface HeaderObject {
  description: string
  schema: { type: 'string' }
}

type Responses = Record<string, { headers?: Record<string, HeaderObject> }>
type RequestBody = { required?: boolean; content?: Record<string, { schema?: { required?: string[] } }> }
type Document = { paths?: Record<string, Record<string, { responses?: Responses; requestBody?: RequestBody }> | undefined> }

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
    'WWW-Authenticate': { description: 'Always `Basic realm="service-ordering", charset="UTF-8"` (D-11).', schema: { type: 'string' } }
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

/** Adds the headers above to every response of every operation, frees optional bodies and publishes `x-doc-` rules; returns the same document. */
export function completeDocument<T extends object>(document: T): T {
  for (const [path, operations] of Object.entries((document as Document).paths ?? {})) {
    for (const [method, operation] of Object.entries(operations ?? {})) {
      const cached = method === 'post' || path.startsWith('/v1/') ? NOT_CACHED : {}
      const body = operation.requestBody
      const schema = body?.content?.['application/json']?.schema
      if (body !== undefined && schema !== undefined && (schema.required ?? []).length === 0) body.required = false
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        response.headers = { ...response.headers, ...EVERY_ANSWER, ...cached, ...BY_STATUS[status] }
      }
    }
  }
  publishDocRules(document)
  return document
}
