import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { App } from './app-types.js'
import type { Metrics } from './metrics.js'
import type { Principal } from './principal.js'
import { problems } from './problems.js'

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/
const V1_PATH = /^\/v1(?:[/?]|$)/

const REQUEST_ID = Symbol('request id')

/** The fields of a request's log line (D-73); the caller's id when it is a key or a staff session (D-17). */
interface RequestLine {
  method: string
  route: string
  status: number
  ms: number
  key_id?: string
  staff_id?: string
}

/**
 * The caller's X-Request-Id when it is sane, else a fresh one (D-73). Kept on the request, so that
 * an answer the connection layer gives it (a body that came too slowly) names the same id.
 */
export function requestIdOf(raw: IncomingMessage): string {
  const given = raw.headers['x-request-id']
  const id = typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID()
  ;(raw as { [REQUEST_ID]?: string })[REQUEST_ID] = id
  return id
}

/** The id `requestIdOf` gave this request, if it was given one. */
export function storedRequestId(raw: IncomingMessage): string | undefined {
  return (raw as { [REQUEST_ID]?: string })[REQUEST_ID]
}

// Fields a request may carry once only (RFC 9110 §5.3). Node keeps the first of each and drops the
// rest, where a proxy in front may have read the last: the two would act on different requests.
const SINGLETON_FIELDS = new Set(['host', 'authorization', 'content-type'])

/**
 * Why a request's header section is refused though Node lets it through: HTTP/1.1 without Host
 * (RFC 9112 §3.2: 400), or a field above sent twice. Undefined for a sound request.
 */
function headerFault(raw: IncomingMessage): string | undefined {
  if (raw.headers.host === undefined) {
    return raw.httpVersionMajor === 1 && raw.httpVersionMinor === 0 ? undefined : 'it has no Host header'
  }
  const fields = raw.rawHeaders
  let seen: string[] | undefined
  for (let i = 0; i < fields.length; i += 2) {
    const name = fields[i]!
    // Only names of these lengths can be one of the fields (host, content-type, authorization).
    if (name.length !== 4 && name.length !== 12 && name.length !== 13) continue
    const lower = name.toLowerCase()
    if (!SINGLETON_FIELDS.has(lower)) continue
    if (seen?.includes(lower)) return `it has more than one ${lower} header`
    seen ??= []
    seen.push(lower)
  }
  return undefined
}

/**
 * The headers every response carries (D-73). Every /v1 answer and every POST answer depends on
 * credentials or changes state, so none may be cached.
 */
function setResponseHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id)
  reply.header('x-content-type-options', 'nosniff')
  // `/v1` itself and `/v1?…` are /v1 paths too (their 404 and 405 answers were cacheable). Every
  // POST answers for a credential too (the reset and tracking pages' tokens), so none is cached either.
  if (request.method === 'POST' || V1_PATH.test(request.url)) reply.header('cache-control', 'no-store')
}

/** The one log line and metric sample each answered request leaves (D-71, D-73). */
function recordResponse(metrics: Metrics, request: FastifyRequest, reply: FastifyReply): void {
  const route = request.routeOptions.url ?? 'unmatched'
  const ms = reply.elapsedTime
  metrics.observeRequest(route, request.method, reply.statusCode, ms / 1000)
  const line: RequestLine = { method: request.method, route, status: reply.statusCode, ms: Math.round(ms * 100) / 100 }
  // D-17: who made the request, by id (never a secret); only admitted requests have a principal.
  const principal = request.principal as Principal | undefined
  if (principal?.kind === 'key') line.key_id = principal.keyId
  else if (principal?.kind === 'staff') line.staff_id = principal.staffId
  request.log.info(line, 'request completed')
}

/** Per-request headers, log line and metric sample, for every request that reaches routing. */
export function registerRequestContext(app: App, metrics: Metrics): void {
  // Responses being prepared. When the server starts closing (SIGTERM, D-72), their connections
  // are told to close after the answer: Fastify does so for requests that arrive while closing, but
  // a request already past routing answered `keep-alive`, and its client's idle connection then
  // held the exit back for the whole drain window.
  // A response leaves the set at 'close', which Node emits once for every response, sent or cut off.
  const inFlight = new Set<ServerResponse>()
  function forget(this: ServerResponse): void {
    inFlight.delete(this)
  }

  app.addHook('onRequest', (request, reply, done) => {
    setResponseHeaders(request, reply)
    inFlight.add(reply.raw)
    reply.raw.on('close', forget)
    const fault = headerFault(request.raw)
    if (fault === undefined) done()
    else done(problems.malformedHttp(fault))
  })

  app.addHook('onResponse', (request, reply, done) => {
    recordResponse(metrics, request, reply)
    done()
  })

  app.addHook('preClose', (done) => {
    for (const response of inFlight) if (!response.headersSent) response.setHeader('connection', 'close')
    done()
  })
}

/**
 * For answers Fastify gives before routing (a path that is not valid URL encoding, an over-long
 * path parameter), through `frameworkErrors`: no hook runs for them, so they went out without
 * X-Request-Id or nosniff, and left no log line or metric sample (D-73).
 */
export function answerBeforeRouting(metrics: Metrics, request: FastifyRequest, reply: FastifyReply): void {
  setResponseHeaders(request, reply)
  reply.raw.once('finish', () => recordResponse(metrics, request, reply))
}
