import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { App } from './app-types.js'
import { MAX_BODY_DEPTH } from './body-parsers.js'
import { completeDocument } from './openapi-complete.js'
import { PROBLEM_STATUS } from './problems.js'

const DESCRIPTION = `
The HTTP API of a consumer services business (laundry, dry cleaning, home cleaning): customers, a
catalogue of multi-step services with priced items, and orders (called transactions) moved step by step.

**Conventions.** Every \`/v1\` operation is \`POST\` (any other method: 405 \`method_not_allowed\` with
\`Allow: POST\`), takes and returns JSON, and answers 200 on success. Operations that take no body ignore any
body and content type they are sent. Unknown body fields are ignored. Bodies are at most 64 KiB, nest arrays
and objects at most ${MAX_BODY_DEPTH} levels deep (else 400 \`validation_failed\`), and are in
UTF-8 (a \`charset\` other than \`utf-8\`, or any \`Content-Encoding\` but \`identity\`: 415
\`unsupported_media_type\`; bytes that are not UTF-8: 400 \`invalid_json\`).

**Credentials.** HTTP Basic on every \`/v1\` call: an API key (user name = key id, password = secret; role
\`admin\`, \`staff\` or \`app\`) or a customer's e-mail and password. Or, for staff users signed in to the
console (POST /console/session), no \`Authorization\` header but the \`so_session\` cookie and the
\`X-CSRF-Token\` header its sign-in answered (without it: 403 \`csrf_failed\`); a request with an
\`Authorization\` header is judged by that header alone (D-16). Each operation lists the callers it admits in
\`x-callers\` (D-12, D-18): \`app\`, \`customer\`, \`staff\` (staff and admin keys and staff users), or \`admin\`
(admin keys and admin staff users only); a customer asking for another customer's record or transaction gets
404, as for an id that does not exist.

**Errors.** Every error is an RFC 9457 problem document (\`application/problem+json\`) with a stable
\`code\`; validation failures carry \`errors\`, a list of \`{field, message}\` where \`field\` is a JSON
pointer. Codes and statuses: ${Object.entries(PROBLEM_STATUS)
  .map(([code, status]) => `\`${code}\` ${status}`)
  .join(', ')}.

**Idempotency.** State-changing operations accept an \`Idempotency-Key\` header (1 to 255 visible
characters): a repeat with the same key, path and body within 24 hours returns the first response and
changes nothing; the same key with another path or body is 422 \`idempotency_key_reused\`. Keys are per
credential. Client errors (4xx) are remembered like successes; 429 and 5xx are not, so they may be retried.

**Text.** No text field may hold control characters (U+0000 to U+001F, U+007F to U+009F), except that free text
(descriptions, button titles, notes, preferences, e-mail addresses before trimming) may hold tabs and line breaks,
nor an unpaired UTF-16 surrogate (a JSON escape such as \`"\\ud800"\` alone; a pair such as an emoji is one
character and fine): a field breaking this is 400 \`validation_failed\` naming it. Lengths are counted in
characters (code points), after trimming where a field is trimmed. An id or name that looks a record up (in a path or
a body: customer, transaction and item ids, service names) and holds control characters names no record
and is answered 404 like any unknown one (\`customer_not_found\`, \`service_not_found\`,
\`transaction_not_found\`, \`item_not_found\`; \`item_not_on_receipt\` for the item of a receipt removal).
Such schemas carry \`x-absent\` with that code.

**Slow clients.** The request line and headers must arrive within 10 s and the whole request within 30 s
(by default), else 408 \`request_timeout\` and the connection is closed; headers are at most 16 KiB (431
\`headers_too_large\`); a request HTTP/1.x cannot parse (a malformed request line, header or
\`Content-Length\`), an HTTP/1.1 request without \`Host\`, and one sending \`Host\`, \`Authorization\` or
\`Content-Type\` twice are 400 \`validation_failed\`. An \`Expect\` other than \`100-continue\` is ignored;
\`CONNECT\` is 405. A client that closes its connection before its body has arrived is answered nothing
(the log has one line for it). Connections beyond the server's limit are closed unanswered.

**Money** is kept in integer cents. Item \`price\` is whole cents as digit text; receipt \`price\` and
\`total\` are major units with two decimals.

**Dates and times** are written in the server's \`TIME_ZONE\` (default UTC), the same zone in every response.

**Rate limits.** Sign-in and password-reset calls (console sign-in and set-password too): 60 per client
address per minute; 10 failed sign-ins per e-mail per 15 minutes (failed customer Basic credentials count
too; console sign-ins are counted apart from customers'). Past a limit: 429 \`rate_limited\`
with \`Retry-After\`.
`.trim()

/**
 * Registers OpenAPI 3.1 generation from the route schemas; must come before any route (D-71).
 * `publicUrl` (PUBLIC_URL) is the one server the document names.
 */
export async function registerOpenApi(app: App, version: string, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'service-ordering', version, description: DESCRIPTION },
      servers: [{ url: publicUrl, description: 'PUBLIC_URL of this server.' }],
      components: {
        securitySchemes: {
          basicAuth: {
            type: 'http',
            scheme: 'basic',
            description: 'An API key (key id : secret) or a customer (e-mail : password).'
          },
          consoleSession: {
            type: 'apiKey',
            in: 'cookie',
            name: 'so_session',
            description: 'A console session of a staff user (D-16), set by POST /console/session; only with `csrfToken`.'
          },
          csrfToken: {
            type: 'apiKey',
            in: 'header',
            name: 'X-CSRF-Token',
            description: 'The `csrf_token` POST /console/session answered; every request of a session sends it (D-16).'
          }
        }
      },
      tags: [
        { name: 'customers', description: 'Customers, sign-in and password reset' },
        { name: 'services', description: 'The catalogue: services, steps, statistics' },
        { name: 'items', description: 'Priced items of a service' },
        { name: 'transactions', description: 'Orders, their receipts, moves and history' },
        { name: 'staff', description: 'Staff users, console sessions and the console settings (D-15, D-16)' },
        { name: 'operations', description: 'Health, readiness, metrics and this document' }
      ]
    },
    // A shared schema (useSchemas) is the component named by its `$id`: `Ref(Customer)` is `#/components/schemas/Customer`.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    // OpenAPI 3.1 has `const`: constant answers stay `const`, not one-value enums.
    convertConstToEnum: false,
    // Paths are the routes as they are: PUBLIC_URL's own path, if any, is not cut from them.
    stripBasePath: false,
    // This app writes OpenAPI only (the `openapi` option above), so `openapiObject` is the document.
    transformObject: (document) => completeDocument('openapiObject' in document ? document.openapiObject : document.swaggerObject)
  })
}

/** Serves the generated document at /openapi.json and a browsable reference at /docs. */
export async function registerOpenApiRoutes(app: App): Promise<void> {
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } })
}
