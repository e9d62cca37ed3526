import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import type { Dialect } from '../db/dialect.js'
import type { App } from './app-types.js'
import { useSchemas } from './components.js'
import { Problem, problems } from './problems.js'
import { type AbsentCode, PROBLEM_SCHEMAS } from './schemas.js'
import { absentKeyCode, toFieldErrors } from './validation-errors.js'

/** Writes a problem document (D-20). The body is serialised here so its shape never depends on a route. */
export function sendProblem(reply: FastifyReply, problem: Problem): FastifyReply {
  if (problem.headers !== undefined) reply.headers(problem.headers)
  return reply.code(problem.status).type('application/problem+json').send(JSON.stringify(problem.toDocument()))
}

const FRAMEWORK_CODES: Record<string, () => Problem> = {
  FST_ERR_CTP_BODY_TOO_LARGE: problems.payloadTooLarge,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: problems.unsupportedMediaType,
  FST_ERR_CTP_EMPTY_JSON_BODY: problems.invalidJson,
  FST_ERR_CTP_INVALID_JSON_BODY: problems.invalidJson,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () =>
    problems.validation([{ field: '', message: 'is not as long as the Content-Length header says' }])
}

// An id or name holding control characters names no record (schemas.ts `Key`).
const ABSENT = {
  customer_not_found: problems.customerNotFound,
  service_not_found: problems.serviceNotFound,
  transaction_not_found: problems.transactionNotFound,
  item_not_found: problems.itemNotFound,
  item_not_on_receipt: problems.itemNotOnReceipt,
  staff_not_found: problems.staffNotFound
} satisfies Record<AbsentCode, () => Problem>

/**
 * What a request that matches no route is told: 405 for another method on /v1 (D-21), else 404,
 * saying `why` when the path could not be read at all.
 */
export function unroutedProblem(request: FastifyRequest, why?: string): Problem {
  const path = pathOf(request)
  // D-21: any method but POST on a /v1 path is 405 with Allow: POST, whether or not the path exists.
  if (request.method !== 'POST' && (path === '/v1' || path.startsWith('/v1/'))) return problems.methodNotAllowed(request.method)
  return problems.routeNotFound(request.method, path, why)
}

// Paths the router cannot match at all (bad percent-encoding, a parameter over maxParamLength):
// no operation has such a path. They were 400 "body could not be read", which names the wrong part;
// the detail says why the path matched nothing, since an operation of that shape may well exist.
const UNROUTABLE: Readonly<Record<string, string>> = {
  FST_ERR_BAD_URL: 'its path is not valid percent-encoding of UTF-8 text',
  FST_ERR_MAX_PARAM_LENGTH: 'a segment of its path is too long'
}

/** The problem for an error Fastify raises before routing (`frameworkErrors`). */
export function frameworkProblem(error: FastifyError, request: FastifyRequest, dialect: Dialect): Problem {
  const why = UNROUTABLE[error.code]
  return why === undefined ? toProblem(error, dialect) : unroutedProblem(request, why)
}

/** Maps anything thrown while handling a request to the problem the client is told about. */
function toProblem(error: unknown, dialect: Dialect): Problem {
  if (error instanceof Problem) return error
  const fastifyError = error as Partial<FastifyError> & { validationContext?: string }
  if (Array.isArray(fastifyError.validation)) {
    const absent = absentKeyCode(fastifyError.validation)
    if (absent !== undefined) return ABSENT[absent]()
    return problems.validation(toFieldErrors(fastifyError.validation, fastifyError.validationContext))
  }
  const known = fastifyError.code === undefined ? undefined : FRAMEWORK_CODES[fastifyError.code]
  if (known !== undefined) return known()
  // Before the database's own checks: node-postgres reports a lost connection as ECONNRESET too.
  if (isClientAbort(error)) return problems.validation([{ field: '', message: 'was not received in full' }])
  if (dialect.isUnavailable(error)) return problems.unavailable()
  const status = fastifyError.statusCode
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (status === 413) return problems.payloadTooLarge()
    if (status === 415) return problems.unsupportedMediaType()
    return problems.validation([{ field: '', message: 'could not be read' }])
  }
  return problems.internal()
}

/**
 * The error Node raises on a request whose client closed the connection (or was cut off by the
 * request deadline) before the whole body arrived: the client's doing, not the server's.
 */
function isClientAbort(error: unknown): boolean {
  const abort = error as Partial<NodeJS.ErrnoException>
  return abort.code === 'ECONNRESET' && abort.message === 'aborted'
}

function pathOf(request: FastifyRequest): string {
  const query = request.url.indexOf('?')
  return query === -1 ? request.url : request.url.slice(0, query)
}

/**
 * Whether a request the route's schemas refused reuses an Idempotency-Key (D-52), so that 422
 * answers it instead of the schema's 400 or 404.
 */
export type KeyReuseCheck = (request: FastifyRequest) => Promise<boolean>

/** For servers without keyed operations (the worker's metrics server). */
const NO_KEYS: KeyReuseCheck = () => Promise.resolve(false)

/** Every failure, the framework's own included, becomes an RFC 9457 problem document (D-20, D-21). */
export function registerErrorHandling(app: App, dialect: Dialect, keyReused: KeyReuseCheck = NO_KEYS): void {
  // The schema of those documents, which every route's problem responses refer to.
  useSchemas(app, PROBLEM_SCHEMAS)
  app.setErrorHandler(async (error, request, reply) => {
    let problem = toProblem(error, dialect)
    if (Array.isArray((error as Partial<FastifyError>).validation) && request.headers['idempotency-key'] !== undefined) {
      try {
        if (await keyReused(request)) problem = problems.idempotencyKeyReused()
      } catch {
        // The key could not be read (the database is away): the schema's answer stands.
      }
    }
    if (problem.code === 'internal') request.log.error({ err: error }, 'request failed')
    else if (problem.code === 'unavailable') request.log.warn({ err: error }, 'database unavailable')
    // Its connection is gone, so no answer reaches it and no "request completed" line follows.
    else if (isClientAbort(error))
      request.log.info(
        { method: request.method, route: request.routeOptions.url ?? 'unmatched' },
        'client closed the connection before its request was read'
      )
    return sendProblem(reply, problem)
  })

  app.setNotFoundHandler((request, reply) => sendProblem(reply, unroutedProblem(request)))
}
