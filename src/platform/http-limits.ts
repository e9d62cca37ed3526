import { randomUUID } from 'node:crypto'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyServerOptions } from 'fastify'
import type { Config } from '../config.js'
import { ConnectionSlots } from './connection-slots.js'
import { type Problem, problems } from './problems.js'
import { requestIdOf, storedRequestId } from './request-context.js'

type Limits = Pick<
  Config,
  | 'httpHeadersTimeoutMs'
  | 'httpRequestTimeoutMs'
  | 'httpKeepAliveTimeoutMs'
  | 'httpMaxConnections'
  | 'httpMaxConnectionsPerAddress'
  | 'httpMaxHeaderSize'
>

/**
 * Slow and hostile clients: what the HTTP server lets a client take.
 * - The request line and headers must arrive within HTTP_HEADERS_TIMEOUT_MS (a slowloris client
 *   dripping header lines holds a connection no longer), the whole request within
 *   HTTP_REQUEST_TIMEOUT_MS (a body trickled byte by byte); either way 408 and the connection closes.
 * - Node checks those deadlines every `connectionsCheckingInterval`: a quarter of the header
 *   deadline, at most 1 s, so a deadline is not stretched by the check's own period.
 * - A socket with no traffic at all is closed after a minute (`connectionTimeout`), an idle
 *   kept-alive one after HTTP_KEEP_ALIVE_TIMEOUT_MS.
 * - Headers are at most HTTP_MAX_HEADER_SIZE bytes (431).
 */
export function httpServerOptions(limits: Limits): Pick<
  FastifyServerOptions,
  'requestTimeout' | 'connectionTimeout' | 'keepAliveTimeout' | 'clientErrorHandler'
> & {
  http: {
    headersTimeout: number
    requestTimeout: number
    maxHeaderSize: number
    connectionsCheckingInterval: number
    keepAliveTimeout: number
    requireHostHeader: boolean
  }
} {
  return {
    requestTimeout: limits.httpRequestTimeoutMs,
    connectionTimeout: Math.max(60_000, limits.httpRequestTimeoutMs),
    keepAliveTimeout: limits.httpKeepAliveTimeoutMs,
    http: {
      headersTimeout: limits.httpHeadersTimeoutMs,
      requestTimeout: limits.httpRequestTimeoutMs,
      keepAliveTimeout: limits.httpKeepAliveTimeoutMs,
      maxHeaderSize: limits.httpMaxHeaderSize,
      connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(limits.httpHeadersTimeoutMs / 4))),
      // Node answers a missing Host with a bare 400 and no body; `headerFault` answers it (D-20).
      requireHostHeader: false
    },
    clientErrorHandler: answerClientError
  }
}

/**
 * At most HTTP_MAX_CONNECTIONS connections at once, and HTTP_MAX_CONNECTIONS_PER_ADDRESS from one
 * client address; at the limit the longest-idle connection makes room, so idle sockets held by
 * one client cannot shut the others out (connection-slots.ts).
 */
export function limitConnections(server: Server, limits: Limits): void {
  new ConnectionSlots({ max: limits.httpMaxConnections, perAddress: limits.httpMaxConnectionsPerAddress }).attach(server)
}

/**
 * Requests Node keeps from the app unless told otherwise, answered like all others:
 * - an `Expect` other than 100-continue: Node answered 417 with no body; RFC 9110 §10.1.1 lets a
 *   server ignore an expectation it does not know, so the request is served as if it had none;
 * - CONNECT: Node dropped the connection without a word; it is 405 (RFC 9110 §9.3.6), with an
 *   empty Allow, since a host and port as target have no methods here.
 */
export function answerUnusualRequests(server: Server): void {
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => server.emit('request', request, response))
  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    writeProblem(socket, problems.notAProxy(), requestIdOf(request))
  })
}

const REQUEST_LINE_ERRORS = new Set(['HPE_INVALID_METHOD', 'HPE_INVALID_URL', 'HPE_INVALID_VERSION', 'HPE_INVALID_CONSTANT'])
const HEADER_ERRORS = new Set([
  'HPE_INVALID_HEADER_TOKEN',
  'HPE_INVALID_CONTENT_LENGTH',
  'HPE_UNEXPECTED_CONTENT_LENGTH',
  'HPE_INVALID_TRANSFER_ENCODING',
  'HPE_UNEXPECTED_SPACE'
])

/** The problem for an error of the connection itself, which no route or hook ever sees. */
function clientErrorProblem(error: NodeJS.ErrnoException): Problem {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return problems.requestTimeout()
  if (error.code === 'HPE_HEADER_OVERFLOW') return problems.headersTooLarge()
  if (error.code !== undefined && REQUEST_LINE_ERRORS.has(error.code)) return problems.malformedHttp('its request line could not be read')
  if (error.code !== undefined && HEADER_ERRORS.has(error.code)) return problems.malformedHttp('its headers could not be read')
  return problems.malformedHttp('it could not be read')
}

/**
 * Fastify's `clientErrorHandler`: a request Node could not read (malformed, too slow, headers too
 * large) is answered with a problem document (D-20), like every other error, then the connection
 * is closed. Fastify's default wrote its own JSON shape.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  writeProblem(socket, clientErrorProblem(error), requestIdOnSocket(socket))
}

/**
 * D-73: the id of the request a connection was reading when it failed: a body that came too slowly
 * belongs to a request whose headers (and X-Request-Id) were read. Node keeps the response it is
 * preparing on the socket; when there is none, the headers were not read and the id is a new one.
 */
function requestIdOnSocket(socket: Duplex): string {
  const pending = (socket as { _httpMessage?: ServerResponse })._httpMessage
  return (pending?.req === undefined ? undefined : storedRequestId(pending.req)) ?? randomUUID()
}

/** A problem document written straight to a connection Fastify does not handle, which then closes. */
function writeProblem(socket: Duplex, problem: Problem, requestId: string): void {
  if (socket.writable) {
    const document = problem.toDocument()
    const body = JSON.stringify(document)
    const extra = Object.entries(problem.headers ?? {})
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('')
    socket.write(
      `HTTP/1.1 ${problem.status} ${document.title}\r\n` +
        'Connection: close\r\n' +
        `X-Request-Id: ${requestId}\r\n` +
        extra +
        'Content-Type: application/problem+json; charset=utf-8\r\n' +
        'X-Content-Type-Options: nosniff\r\n' +
        'Cache-Control: no-store\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
    )
  }
  socket.destroy()
}
