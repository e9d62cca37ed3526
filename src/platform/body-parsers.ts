import type { preParsingHookHandler } from 'fastify'
import type { App } from './app-types.js'
import { problems } from './problems.js'

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
    parseJson(request, text, done)
  })

  // Anything that is not JSON. Reached only by operations that take a body (see onRoute below).
  app.addContentTypeParser('*', (_request, _payload, done) => {
    done(problems.unsupportedMediaType(), undefined)
  })

  app.decorateRequest('rawBody', undefined)

  app.addHook('onRoute', (route) => {
    if (route.method !== 'POST' || route.schema?.body !== undefined) return
    // D-23: a body-less operation never looks at the body: without a content type, Fastify hands
    // the payload to no parser and the handler runs at once.
    const ignoreBody: preParsingHookHandler = (request, _reply, payload, done) => {
      delete request.headers['content-type']
      delete request.headers['content-length']
      delete request.headers['transfer-encoding']
      payload.resume()
      done(null, payload)
    }
    const existing = route.preParsing
    route.preParsing = existing === undefined ? [ignoreBody] : [...(Array.isArray(existing) ? existing : [existing]), ignoreBody]
  })
}
