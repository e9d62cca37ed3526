import { randomUUID } from 'node:crypto'
import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyServerOptions } from 'fastify'
import type { Config } from '../config.js'
import { Problem, problems } from './problems.js'

type Limits = Pick<Config, 'httpHeadersTimeoutMs' | 'httpRequestTimeoutMs' | 'httpKeepAliveTimeoutMs' | 'httpMaxConnections' | 'httpMaxHeaderSize'>

/**
 * Issue 8, slow and hostile clients: what the HTTP server lets a client take.
 * - The request line and headers must arrive within HTTP_HEADERS_TIMEOUT_MS (a slowloris client
 *   dripping header lines holds a connection no longer), the whole request within
 *   HTTP_REQUEST_TIMEOUT_MS (a body trickled byte by byte); either way 408 and the connection closes.
 * - Node checks those deadlines every `connectionsCheckingInterval` (30 s by default, which let a
 *   10 s header deadline stretch to 40 s); here a quarter of the header deadline, at most 1 s.
 * - A socket with no traffic at all is closed after a minute (`connectionTimeout`), an idle
 *   kept-alive one after HTTP_KEEP_ALIVE_TIMEOUT_MS.
 * - Headers are at most HTTP_MAX_HEADER_SIZE bytes (431).
 */
export function httpServerOptions(limits: Limits): Pick<FastifyServerOptions, 'requestTimeout' | 'connectionTimeout' | 'keepAliveTimeout' | 'clientErrorHandler'> & {
  http: { headersTimeout: number; requestTimeout: number; maxHeaderSize: number; connectionsCheckingInterval: number; keepAliveTimeout: number }
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
      connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(limits.httpHeadersTimeoutMs / 4)))
    },
    clientErrorHandler: answerClientError
  }
}

/**
 * At most HTTP_MAX_CONNECTIONS connections at once: Node closes any further one as it arrives,
 * before reading a byte of it, so a client opening thousands of sockets cannot starve the others.
 */
export function limitConnections(server: Server, limits: Limits): void {
  server.maxConnections = limits.httpMaxConnections
}

/** The problem for an error of the connection itself, which no route or hook ever sees. */
function clientErrorProblem(error: NodeJS.ErrnoException): Problem {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return problems.requestTimeout()
  if (error.code === 'HPE_HEADER_OVERFLOW') return problems.headersTooLarge()
  return problems.validation([{ field: '', message: 'is not a valid HTTP/1.1 request' }])
}

/**
 * Fastify's `clientErrorHandler`: a request Node could not read (malformed, too slow, headers too
 * large) is answered with a problem document (D-20), like every other error, then the connection
 * is closed. Fastify's default wrote its own JSON shape.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  if (socket.writable) {
    const problem = clientErrorProblem(error)
    const body = JSON.stringify(problem.toDocument())
    // D-73: every response carries X-Request-Id. Headers that could not be read cannot supply one,
    // so it is always a new one.
    socket.write(
      `HTTP/1.1 ${problem.status} ${problem.toDocument().title}\r\n` +
        'Connection: close\r\n' +
        `X-Request-Id: ${randomUUID()}\r\n` +
        'Content-Type: application/problem+json; charset=utf-8\r\n' +
        'X-Content-Type-Options: nosniff\r\n' +
        'Cache-Control: no-store\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
    )
  }
  socket.destroy()
}
