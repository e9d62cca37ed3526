import type { FastifyReply } from 'fastify'
import type { App } from '../../platform/app-types.js'
import type { Authenticator } from '../../platform/auth.js'
import { Ref } from '../../platform/components.js'
import { passwordInNfkc } from '../../platform/credential-fields.js'
import { problems } from '../../platform/problems.js'
import type { RateLimitStore } from '../../platform/rate-limit.js'
import { callsPerAddress, LIMITS } from '../../platform/rate-limit.rules.js'
import { CONNECTION_PROBLEMS, operation, problemResponses, textAnswer } from '../../platform/schemas.js'
import { SESSION_COOKIE, SESSION_LIFETIME_MS, sessionTokenOf } from '../../platform/session-auth.js'
import type { ConsoleService } from './console.service.js'
import { SET_PASSWORD_PAGE } from './set-password.page.js'
import { ConsoleConfig, ConsoleStatus, SessionBody, SessionOwner, SessionView, SetPasswordBody } from './staff.schemas.js'

const tags = ['staff']
const LIMIT_NOTE = "At most 60 sign-in and password calls per client address per minute, counted with customers' sign-ins (D-14)."

/** What GET /console/config answers (D-63, D-02). */
export interface ConsoleSettings {
  readonly shopName: string
  readonly timeZone: string
  /** Whether there is no active admin staff user yet. */
  setupNeeded(): Promise<boolean>
}

/**
 * D-16's cookie: the session token, for this site's requests only, never readable by scripts, for
 * 12 hours at most; `Secure` when PUBLIC_URL is https. `token` null: the cookie that deletes it.
 */
function sessionCookie(token: string | null, secure: boolean): string {
  const maxAge = token === null ? 0 : SESSION_LIFETIME_MS / 1000
  return `${SESSION_COOKIE}=${token ?? ''}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAge}${secure ? '; Secure' : ''}`
}

/**
 * The console's own endpoints outside /v1 (D-16): sign-in and sign-out, the set-password page of
 * an invitation link and its submit, and the settings the console shows before anyone signs in.
 * None takes Basic credentials: the password, the session cookie or the link's token is the credential.
 */
export function consoleRoutes(
  app: App,
  auth: Pick<Authenticator, 'authenticateRequest'>,
  sessions: ConsoleService,
  settings: ConsoleSettings,
  limiter: RateLimitStore,
  secure: boolean
): void {
  const perAddress = callsPerAddress(limiter, LIMITS.signInOrResetCallsPerAddress)

  app.post(
    '/console/session',
    {
      onRequest: perAddress,
      schema: operation({
        id: 'signInToConsole',
        summary: 'Sign in to the console',
        description: `Checks an active staff user's e-mail and password and starts a console session (D-16): the answer carries \`Set-Cookie: so_session=…; HttpOnly; SameSite=Strict; Path=/; Max-Age=43200\` (plus \`Secure\` when PUBLIC_URL is https) and the \`csrf_token\` every /v1 request of the session must send as \`X-CSRF-Token\` (else 403 \`csrf_failed\`). A session ends 12 hours after sign-in, after 2 hours without a request, on POST /console/session/end, or when the user is disabled or their password set. A wrong pair, an unknown e-mail and a disabled user are all 401 \`invalid_login\`, in about the same time. After 10 failed sign-ins for one e-mail in 15 minutes, 429 until the window ends. ${LIMIT_NOTE}`,
        tags,
        body: SessionBody,
        response: Ref(SessionView),
        problems: ['invalid_login']
      })
    },
    async (request, reply) => {
      const { token, view } = await sessions.signIn(request.body)
      reply.header('set-cookie', sessionCookie(token, secure))
      return view
    }
  )

  app.get(
    '/console/session',
    {
      schema: {
        tags,
        operationId: 'consoleSessionOwner',
        summary: 'Who is signed in',
        security: [{ consoleSession: [], csrfToken: [] }],
        description:
          "The staff user of this tab's console session (D-16): it sends the `so_session` cookie and its `X-CSRF-Token`, so a reloaded console can show who is signed in while the tab keeps nothing but the CSRF token. An ended or unknown session is 401; a live one without its token, 403 `csrf_failed`.",
        response: {
          200: Ref(SessionOwner),
          ...problemResponses([...CONNECTION_PROBLEMS, 'unauthenticated', 'csrf_failed', 'internal', 'unavailable'])
        }
      }
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store')
      // Only a session answers here, never Basic credentials (nor their browser prompt).
      if (sessionTokenOf(request.headers.cookie) === undefined) throw problems.sessionEnded()
      const principal = await auth.authenticateRequest(
        { cookie: request.headers.cookie, 'x-csrf-token': request.headers['x-csrf-token'] },
        request.ip
      )
      if (principal.kind !== 'staff') throw problems.sessionEnded()
      return { staff_id: principal.staffId, name: principal.name, role: principal.role }
    }
  )

  app.post(
    '/console/session/end',
    {
      schema: operation({
        id: 'signOutOfConsole',
        summary: 'Sign out of the console',
        description:
          'Ends the session of the `so_session` cookie at once and deletes the cookie (`Max-Age=0`) (D-16). Answers the same without a cookie (then no `Set-Cookie`: a request without the cookie has none to delete) or for a session already ended. Takes no body.',
        tags,
        response: Ref(ConsoleStatus),
        problems: []
      })
    },
    async (request, reply: FastifyReply) => {
      const token = sessionTokenOf(request.headers.cookie)
      await sessions.end(token)
      // Cleared only for a request that carried it: another site's form post (sent without the
      // SameSite=Strict cookie) cannot delete this browser's cookie.
      if (token !== undefined) reply.header('set-cookie', sessionCookie(null, secure))
      return { status: 'success' }
    }
  )

  app.get(
    '/console/set-password',
    {
      schema: {
        tags,
        operationId: 'setPasswordPage',
        summary: 'Set-password page',
        description:
          'The page of an invitation link (D-15): a small self-contained HTML form (no external assets) that reads `token` from its address, submits it with the new password to POST /console/set-password, then links to the console. No credentials.',
        response: { 200: textAnswer('The set-password page.', 'text/html'), ...problemResponses(CONNECTION_PROBLEMS) }
      }
    },
    async (_request, reply) => reply.headers(SET_PASSWORD_PAGE.headers).send(SET_PASSWORD_PAGE.html)
  )

  app.post(
    '/console/set-password',
    {
      onRequest: perAddress,
      preValidation: passwordInNfkc,
      schema: operation({
        id: 'setStaffPassword',
        summary: 'Set a staff password',
        description: `What the page of GET /console/set-password submits: \`{token, password}\` (D-15). Sets the staff user's password (8 to 128 characters, counted in Unicode NFKC) and spends the token, in one transaction; their other links and their sessions end with it. A bad, spent or expired token (links live 72 hours) is 400 \`invalid_token\`. No credentials: the token is the credential. ${LIMIT_NOTE}`,
        tags,
        body: SetPasswordBody,
        response: Ref(ConsoleStatus),
        problems: ['invalid_token']
      })
    },
    async (request) => {
      await sessions.setPassword(request.body)
      return { status: 'success' }
    }
  )

  app.get(
    '/console/config',
    {
      schema: {
        tags,
        operationId: 'consoleConfig',
        summary: 'Console settings',
        description:
          'What the console shows before anyone signs in: the shop\'s name (`SHOP_NAME`, D-63), the time zone of every date and time (`TIME_ZONE`, D-02), and `setup_needed`, true while there is no active admin staff user (README "First sign-in"). No credentials; never cached.',
        response: { 200: Ref(ConsoleConfig), ...problemResponses([...CONNECTION_PROBLEMS, 'internal', 'unavailable']) }
      }
    },
    async (_request, reply) => {
      reply.header('cache-control', 'no-store')
      return { shop_name: settings.shopName, time_zone: settings.timeZone, setup_needed: await settings.setupNeeded() }
    }
  )
}
