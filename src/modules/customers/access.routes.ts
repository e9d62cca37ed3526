import type { App } from '../../platform/app-types.js'
import { Ref } from '../../platform/components.js'
import { passwordInNfkc } from '../../platform/credential-fields.js'
import type { RateLimitStore } from '../../platform/rate-limit.js'
import { callsPerAddress, LIMITS } from '../../platform/rate-limit.rules.js'
import { CONNECTION_PROBLEMS, operation, problemResponses, textAnswer } from '../../platform/schemas.js'
import { MessageResponse, ResetConfirmBody, ResetRequestBody, SignInBody, SignInResponse, StatusResponse } from './access.schemas.js'
import { RESET_PAGE_HEADERS, RESET_PAGE_HTML } from './password-reset.page.js'
import type { PasswordResetService } from './password-reset.service.js'
import type { SignInService } from './sign-in.service.js'

const tags = ['customers']
const LIMIT_NOTE = 'At most 60 sign-in and password-reset calls per client address per minute (D-14).'

/** Sign-in and asking for a reset link: open to every caller (D-12), limited per address (D-14). */
export function signInRoutes(app: App, signIn: SignInService, reset: PasswordResetService, limiter: RateLimitStore): void {
  const onRequest = callsPerAddress(limiter, LIMITS.signInOrResetCallsPerAddress)

  app.post(
    '/v1/customer/signin',
    {
      onRequest,
      schema: operation({
        id: 'signIn',
        summary: 'Sign in',
        description: `Checks a customer's e-mail and password and answers their id; no token (spec Authentication). A wrong pair is 401 \`invalid_login\`, the same answer in about the same time for an unknown e-mail and a wrong password (D-35). After 10 failed sign-ins for one e-mail in 15 minutes, 429 until the window ends. ${LIMIT_NOTE}`,
        tags,
        body: SignInBody,
        response: Ref(SignInResponse),
        problems: ['invalid_login']
      })
    },
    (request) => signIn.signIn(request.body)
  )

  app.post(
    '/v1/customer/reset_password',
    {
      onRequest,
      schema: operation({
        id: 'requestPasswordReset',
        summary: 'Request password reset',
        description: `Always answers the same message. When a customer uses the address, an e-mail with a link to \`PUBLIC_URL/reset-password?token=…\` is sent through the outbox; the token is single use and valid for one hour (D-36). At most 5 such e-mails per customer per hour. ${LIMIT_NOTE}`,
        tags,
        body: ResetRequestBody,
        response: Ref(MessageResponse),
        problems: []
      })
    },
    (request) => reset.request(request.body)
  )
}

/** Setting a new password with a reset token: open to every caller (D-12), limited per address (D-14). */
export function resetConfirmRoutes(app: App, reset: PasswordResetService, limiter: RateLimitStore): void {
  app.post(
    '/v1/customer/reset_password/confirm',
    {
      onRequest: callsPerAddress(limiter, LIMITS.signInOrResetCallsPerAddress),
      preValidation: passwordInNfkc,
      schema: operation({
        id: 'confirmPasswordReset',
        summary: 'Confirm password reset',
        description: `Sets the password and spends the token in one transaction; a bad, spent or expired token is 400 \`invalid_token\` (D-37). Older links of the customer stop working too. Like every /v1 operation it needs Basic credentials; the page of the e-mailed link (GET /reset-password) submits to POST /reset-password instead, where the token alone is the credential. ${LIMIT_NOTE}`,
        tags,
        body: ResetConfirmBody,
        response: Ref(StatusResponse),
        problems: ['invalid_token']
      })
    },
    (request) => reset.confirm(request.body)
  )
}

/**
 * D-37: the page the reset e-mail links to, and the endpoint its form submits to. Both sit outside
 * /v1 because a browser following the link holds no API key: the single-use, one-hour token is the
 * credential. Submitting runs the same use case as the confirm operation, under the same limit.
 */
export function resetPageRoutes(app: App, reset: PasswordResetService, limiter: RateLimitStore): void {
  app.get(
    '/reset-password',
    {
      schema: {
        tags,
        operationId: 'resetPasswordPage',
        summary: 'Password reset page',
        description:
          'A small self-contained HTML form (no external assets) that reads `token` from its address and submits it with the new password to POST /reset-password (D-37). No credentials.',
        response: { 200: textAnswer('The reset page.', 'text/html'), ...problemResponses(CONNECTION_PROBLEMS) }
      }
    },
    async (_request, reply) => reply.headers(RESET_PAGE_HEADERS).send(RESET_PAGE_HTML)
  )

  app.post(
    '/reset-password',
    {
      onRequest: callsPerAddress(limiter, LIMITS.signInOrResetCallsPerAddress),
      preValidation: passwordInNfkc,
      schema: operation({
        id: 'submitPasswordResetPage',
        summary: 'Submit the password reset page',
        description: `What the page of GET /reset-password submits: \`{token, password}\`, answered like POST /v1/customer/reset_password/confirm. No Basic credentials: the token is the credential (D-37). ${LIMIT_NOTE}`,
        tags,
        body: ResetConfirmBody,
        response: Ref(StatusResponse),
        problems: ['invalid_token']
      })
    },
    (request) => reset.confirm(request.body)
  )
}
