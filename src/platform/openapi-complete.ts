/**
 * What the route schemas cannot say, written into the generated OpenAPI document: the response
 * headers the server sends (`X-Request-Id` on every answer, D-73; the Basic challenge on every 401,
 * D-11; `Retry-After` on 429 and 503, D-14, D-21), and that a body with no required field may be left
 * out (@fastify/swagger marks every request body required).
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

/** Adds the headers above to every response of every operation and frees optional bodies; returns the same document. */
export function completeDocument<T extends object>(document: T): T {
  for (const operations of Object.values((document as Document).paths ?? {})) {
    for (const operation of Object.values(operations ?? {})) {
      const body = operation.requestBody
      const schema = body?.content?.['application/json']?.schema
      if (body !== undefined && schema !== undefined && (schema.required ?? []).length === 0) body.required = false
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        response.headers = { ...response.headers, 'X-Request-Id': REQUEST_ID, ...BY_STATUS[status] }
      }
    }
  }
  return document
}
