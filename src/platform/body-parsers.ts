import type { preParsingHookHandler, preValidationHookHandler } from 'fastify'
import type { App } from './app-types.js'
import { invalidField, problems } from './problems.js'

const POISONING_MESSAGE = 'must not have a "__proto__" key, or a "constructor" key holding "prototype", at any depth'

/** D-70: request bodies are at most 64 KiB. */
export const BODY_LIMIT = 64 * 1024

/**
 * JSON is the only body type (415 otherwise), parsed with prototype-poisoning protection and kept
 * raw for the one field that needs its digits exactly (cc_number). Operations that take no body
 * ignore whatever body and content type they are sent (D-23).
 */
export function registerBodyParsers(app: App): void {
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeAllContentTypeParsers()

  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (request, body, done) => {
    const text = body as string
    request.rawBody = text
    parseJson(request, text, (error, value) => {
      // The parser refuses valid JSON that would poison prototypes with the same error as broken
      // JSON; only on that failure path, tell the two apart and say what is wrong.
      if (error !== null && isJson(text)) return done(invalidField('', POISONING_MESSAGE), undefined)
      done(error, value)
    })
  })

  // Anything that is not JSON. Reached only by operations that take a body (see onRoute below).
  app.addContentTypeParser('*', (_request, _payload, done) => {
    done(problems.unsupportedMediaType(), undefined)
  })

  app.decorateRequest('rawBody', undefined)

  app.addHook('onRoute', (route) => {
    if (route.method !== 'POST') return
    if (route.schema?.body !== undefined) {
      // An operation none of whose body fields is required (list transactions) may be sent with
      // no body at all, as a careful client of an all-optional filter would expect: it reads as {}.
      if (!hasRequiredFields(route.schema.body)) route.preValidation = withHook(route.preValidation, emptyBodyAsObject)
      return
    }
    // D-23: a body-less operation never looks at the body: without a content type, Fastify hands
    // the payload to no parser and the handler runs at once.
    const ignoreBody: preParsingHookHandler = (request, _reply, payload, done) => {
      const headers = request.headers
      // The usual case, no body at all: nothing to hide or drain.
      if (headers['content-type'] === undefined && headers['content-length'] === undefined && headers['transfer-encoding'] === undefined) {
        return done(null, payload)
      }
      delete request.headers['content-type']
      delete request.headers['content-length']
      delete request.headers['transfer-encoding']
      payload.resume()
      done(null, payload)
    }
    route.preParsing = withHook(route.preParsing, ignoreBody)
  })
}

const emptyBodyAsObject: preValidationHookHandler = (request, _reply, done) => {
  if (request.body === undefined) request.body = {}
  done()
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

function hasRequiredFields(schema: unknown): boolean {
  const required = (schema as { required?: unknown }).required
  return Array.isArray(required) && required.length > 0
}

/** A route's hooks of one kind with `hook` appended. */
function withHook<H>(existing: H | H[] | undefined, hook: H): H[] {
  if (existing === undefined) return [hook]
  return Array.isArray(existing) ? [...existing, hook] : [existing, hook]
}
