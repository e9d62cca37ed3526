import { isUtf8 } from 'node:buffer'
import type { FastifyRequest, preParsingHookHandler, preValidationHookHandler } from 'fastify'
import type { App } from './app-types.js'
import { invalidField, type Problem, problems } from './problems.js'

const POISONING_MESSAGE = 'must not have a "__proto__" key, or a "constructor" key holding "prototype", at any depth'

/** D-70: request bodies are at most 64 KiB. */
export const BODY_LIMIT = 64 * 1024

/**
 * Arrays and objects may nest this deep in a body. No operation's body nests more than three
 * levels; code that walks a body recursively (the Idempotency-Key's canonical form) overflowed
 * the stack at about 3,000 levels, which 6 KB of brackets reach (a 500).
 */
export const MAX_BODY_DEPTH = 32
const DEPTH_MESSAGE = `must not nest arrays and objects more than ${MAX_BODY_DEPTH} levels deep`

/**
 * JSON is the only body type (415 otherwise), parsed with prototype-poisoning protection and kept
 * raw for the one field that needs its digits exactly (cc_number). Operations that take no body
 * ignore whatever body and content type they are sent (D-23).
 */
export function registerBodyParsers(app: App): void {
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeAllContentTypeParsers()

  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (request, body, done) => {
    const refused = unreadableBody(request)
    if (refused !== undefined) return done(refused, undefined)
    const bytes = body as Buffer
    // JSON is UTF-8 (RFC 8259 §8.1). Decoding other bytes as UTF-8 would store U+FFFD in their place.
    if (!isUtf8(bytes)) return done(problems.invalidJson('The request body is not valid UTF-8.'), undefined)
    const text = bytes.toString('utf8')
    request.rawBody = text
    parseJson(request, text, (error, value) => {
      // The parser refuses valid JSON that would poison prototypes with the same error as broken
      // JSON; only on that failure path, tell the two apart and say what is wrong.
      if (error !== null && isJson(text)) return done(invalidField('', POISONING_MESSAGE), undefined)
      if (error === null && nestsTooDeep(text)) return done(invalidField('', DEPTH_MESSAGE), undefined)
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
      delete request.headers['content-encoding']
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

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)/i
const UTF8_NAMES = new Set(['utf-8', 'utf8'])

/**
 * A JSON body the server cannot read as sent: in a character set other than UTF-8, or compressed
 * (any Content-Encoding but identity; RFC 9110 §15.5.16 asks for 415 with Accept-Encoding).
 */
function unreadableBody(request: FastifyRequest): Problem | undefined {
  const headers = request.headers
  const coding = headers['content-encoding']
  if (coding !== undefined && coding.trim().toLowerCase() !== 'identity') return problems.unsupportedContentEncoding(coding)
  const charset = CHARSET.exec(headers['content-type'] ?? '')?.[1]
  if (charset !== undefined && !UTF8_NAMES.has(charset.toLowerCase())) return problems.unsupportedCharset(charset)
  return undefined
}

const OPEN_BRACE = 0x7b
const OPEN_BRACKET = 0x5b
const CLOSE_BRACE = 0x7d
const CLOSE_BRACKET = 0x5d
const QUOTE = 0x22
const BACKSLASH = 0x5c

/** Whether valid JSON text nests arrays and objects deeper than MAX_BODY_DEPTH (brackets in strings do not count). */
function nestsTooDeep(text: string): boolean {
  if (text.length <= MAX_BODY_DEPTH) return false
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
    } else if (c === QUOTE) {
      inString = true
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > MAX_BODY_DEPTH) return true
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--
    }
  }
  return false
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
