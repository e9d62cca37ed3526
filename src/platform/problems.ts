import { STATUS_CODES } from 'node:http'

/** Every error code the API can answer with, and its HTTP status (D-21). Stable: clients branch on them. */
export const PROBLEM_STATUS = {
  invalid_json: 400,
  validation_failed: 400,
  partial_card: 400,
  invalid_card: 400,
  unknown_zip: 400,
  invalid_token: 400,
  unauthenticated: 401,
  invalid_login: 401,
  forbidden: 403,
  csrf_failed: 403,
  route_not_found: 404,
  customer_not_found: 404,
  service_not_found: 404,
  step_not_found: 404,
  transaction_not_found: 404,
  item_not_found: 404,
  item_not_on_receipt: 404,
  staff_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  email_taken: 409,
  service_exists: 409,
  step_in_use: 409,
  last_step: 409,
  transaction_closed: 409,
  item_not_in_service: 409,
  position_changed: 409,
  last_admin: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  headers_too_large: 431,
  idempotency_key_reused: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503
} as const

export type ProblemCode = keyof typeof PROBLEM_STATUS

/** One failed field of a request: where (a JSON pointer into the body) and what is wrong. */
export interface FieldError {
  field: string
  message: string
}

/** The RFC 9457 body every error is answered with (D-20). */
export interface ProblemDocument {
  type: string
  title: string
  status: number
  detail: string
  code: ProblemCode
  errors?: FieldError[]
}

/** An error a client caused or must be told about; rendered by the error handler as problem+json. */
export class Problem extends Error {
  override name = 'Problem'
  readonly status: number

  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly headers?: Readonly<Record<string, string>>
  ) {
    // A problem is an answer, not a fault: its stack is never shown or logged, so none is captured.
    const limit = Error.stackTraceLimit
    Error.stackTraceLimit = 0
    super(detail)
    Error.stackTraceLimit = limit
    this.status = PROBLEM_STATUS[code]
  }

  toDocument(): ProblemDocument {
    const document: ProblemDocument = {
      type: `/problems/${this.code}`,
      title: STATUS_CODES[this.status] ?? 'Error',
      status: this.status,
      detail: this.detail,
      code: this.code
    }
    if (this.errors !== undefined) document.errors = this.errors
    return document
  }
}

const BASIC_CHALLENGE = 'Basic realm="service-ordering", charset="UTF-8"'
// D-16: a console session is no Basic credential. A Basic challenge on the console's 401s would make
// the browser hold the page's request and ask for a user name and password over the console; a
// scheme browsers do not know keeps the 401 for the page (which goes back to its sign-in form).
const SESSION_CHALLENGE = 'Session realm="service-ordering"'

/** A header value quoted back in a detail: printable ASCII only, and short. */
function printable(value: string): string {
  const text = value.trim().replace(/[^\x20-\x7e]/g, '?')
  return text.length > 40 ? `${text.slice(0, 40)}…` : text
}

/** A 400 naming one field; for rules beyond what the schema says. */
export function invalidField(field: string, message: string): Problem {
  return new Problem('validation_failed', `The request is invalid: ${field.slice(1) || 'body'} ${message}.`, [{ field, message }])
}

/** Named factories, one per situation, so the same condition always reads the same. */
export const problems = {
  invalidJson: (detail = 'The request body is not valid JSON.') => new Problem('invalid_json', detail),
  validation: (errors: FieldError[]) =>
    new Problem(
      'validation_failed',
      errors.length === 1
        ? `The request is invalid: ${errors[0]!.field.slice(1) || 'body'} ${errors[0]!.message}.`
        : `The request is invalid in ${errors.length} places; see errors.`,
      errors
    ),
  unauthenticated: () =>
    new Problem('unauthenticated', 'Valid HTTP Basic credentials are required.', undefined, {
      'www-authenticate': BASIC_CHALLENGE
    }),
  // RFC 9110 §15.5.2: every 401 carries a challenge; D-11 names this one for wrong credentials.
  invalidLogin: () =>
    new Problem('invalid_login', 'The e-mail address or password is not correct.', undefined, { 'www-authenticate': BASIC_CHALLENGE }),
  // D-16: the console's own refusals, with the session challenge (see SESSION_CHALLENGE).
  invalidConsoleLogin: () =>
    new Problem('invalid_login', 'The e-mail address or password is not correct.', undefined, { 'www-authenticate': SESSION_CHALLENGE }),
  sessionEnded: () =>
    new Problem('unauthenticated', 'The console session has ended or is unknown; sign in again.', undefined, {
      'www-authenticate': SESSION_CHALLENGE
    }),
  forbidden: (detail = 'These credentials may not call this operation.') => new Problem('forbidden', detail),
  // D-16: a console session's request without its sign-in's CSRF token.
  csrfFailed: () => new Problem('csrf_failed', 'A request with a console session must send the X-CSRF-Token its sign-in returned.'),
  routeNotFound: (method: string, path: string, why?: string) =>
    new Problem('route_not_found', `There is no operation ${method} ${path}${why === undefined ? '' : `: ${why}`}.`),
  methodNotAllowed: (method: string) =>
    new Problem('method_not_allowed', `Every /v1 operation is called with POST, not ${method}.`, undefined, {
      allow: 'POST'
    }),
  payloadTooLarge: () => new Problem('payload_too_large', 'The request body is larger than 64 KiB.'),
  // Issue 8: a client too slow to send its request, or one sending too much header (http-limits.ts).
  requestTimeout: () => new Problem('request_timeout', 'The request did not arrive in time; the connection is closed.'),
  headersTooLarge: () => new Problem('headers_too_large', 'The request line and headers are larger than the server accepts.'),
  // The connection layer (http-limits.ts, request-context.ts): no field of the body is at fault.
  malformedHttp: (reason: string) =>
    new Problem('validation_failed', `The request is not valid HTTP/1.1: ${reason}.`, [
      { field: '', message: `is not valid HTTP/1.1: ${reason}` }
    ]),
  notAProxy: () => new Problem('method_not_allowed', 'This server is not a proxy: CONNECT is not served.', undefined, { allow: '' }),
  unsupportedMediaType: () =>
    new Problem('unsupported_media_type', 'The request body must be JSON, sent with Content-Type: application/json.'),
  unsupportedCharset: (charset: string) =>
    new Problem('unsupported_media_type', `The request body must be JSON in UTF-8, not charset=${printable(charset)}.`),
  unsupportedContentEncoding: (coding: string) =>
    new Problem(
      'unsupported_media_type',
      `The request body must be sent uncompressed, not with Content-Encoding: ${printable(coding)}.`,
      undefined,
      {
        'accept-encoding': 'identity'
      }
    ),
  rateLimited: (retryAfterSeconds: number) =>
    new Problem('rate_limited', 'Too many requests; try again later.', undefined, {
      'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds)))
    }),
  idempotencyKeyReused: () =>
    new Problem('idempotency_key_reused', 'This Idempotency-Key was already used with a different operation or body.'),
  customerNotFound: () => new Problem('customer_not_found', 'No customer with this id exists.'),
  serviceNotFound: () => new Problem('service_not_found', 'No service with this name exists.'),
  stepNotFound: (steps: number) => new Problem('step_not_found', `This service has no such step; its steps are numbered 1 to ${steps}.`),
  transactionNotFound: () => new Problem('transaction_not_found', 'No transaction with this id exists.'),
  itemNotFound: () => new Problem('item_not_found', 'No item with this id exists.'),
  itemNotOnReceipt: () => new Problem('item_not_on_receipt', 'This item is not on the receipt of the transaction.'),
  emailTaken: (who = 'customer') => new Problem('email_taken', `Another ${who} already uses this e-mail address.`),
  staffNotFound: () => new Problem('staff_not_found', 'No staff user with this id exists.'),
  lastAdmin: () =>
    new Problem(
      'last_admin',
      'This is the last active admin staff user: make another one admin before disabling them or making them staff.'
    ),
  serviceExists: () => new Problem('service_exists', 'A service with this name already exists.'),
  stepInUse: () => new Problem('step_in_use', 'Transactions are at this step; move them on before removing it.'),
  lastStep: () => new Problem('last_step', 'The only step of a service cannot be removed.'),
  transactionClosed: () => new Problem('transaction_closed', 'This transaction is closed.'),
  itemNotInService: () => new Problem('item_not_in_service', "This item belongs to another service than the transaction's."),
  positionChanged: (actual: number) =>
    new Problem('position_changed', `The transaction is no longer at the step you saw; it is at step ${actual}.`),
  partialCard: (missing: string[]) =>
    new Problem(
      'partial_card',
      'A card update must send cc_name, cc_number, cc_expiration, cc_cvv and cc_zip together.',
      missing.map((name) => ({ field: `/customer/creditcard/${name}`, message: 'is required with the other card fields' }))
    ),
  invalidCard: (field: string, message: string) =>
    new Problem('invalid_card', `The card is not valid: ${field} ${message}.`, [{ field: `/customer/creditcard/${field}`, message }]),
  unknownZip: (field: string) =>
    new Problem('unknown_zip', 'This ZIP code is not in our US ZIP code database.', [{ field, message: 'is not a known US ZIP code' }]),
  invalidToken: (link = 'password reset') =>
    new Problem('invalid_token', `This ${link} link is not valid, was already used, or has expired.`),
  internal: () => new Problem('internal', 'Something went wrong on our side; the request may be retried.'),
  unavailable: () =>
    new Problem('unavailable', 'The service cannot reach its database right now; try again shortly.', undefined, {
      'retry-after': '5'
    })
} as const
