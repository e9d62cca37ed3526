import type { App } from '../../platform/app-types.js'
import { Ref } from '../../platform/components.js'
import { callerOf } from '../../platform/idempotency.js'
import type { RateLimitStore } from '../../platform/rate-limit.js'
import { callsPerAddress, LIMITS } from '../../platform/rate-limit.rules.js'
import { operation } from '../../platform/schemas.js'
import { TokenParams, TrackingLinkResponse, TrackingStatusResponse, TransactionParams } from './tracking.schemas.js'
import type { TrackingService } from './tracking.service.js'

const tags = ['transactions']

/** Handing out tracking links: customers (their own transactions) and staff. */
export function trackingLinkRoutes(app: App, tracking: TrackingService): void {
  app.post(
    '/v1/transaction/:transaction_id/tracking',
    {
      schema: operation({
        id: 'getTrackingLink',
        summary: 'Get tracking link',
        description:
          "The link of the transaction's public tracking page, `PUBLIC_URL/track/<token>`, for the customer. The token (32 random bytes, base64url) is made on the first call and the same link is answered on every later one: the server keeps only its SHA-256, to find it, and a copy sealed with the data key, to answer it again. The page shows the service, the progress bar, the current step and the timeline, nothing about the customer. Another customer's transaction is 404, as a missing one.",
        tags,
        params: TransactionParams,
        response: Ref(TrackingLinkResponse),
        problems: ['transaction_not_found']
      })
    },
    (request) => tracking.link(request.params.transaction_id, request.principal)
  )

  app.post(
    '/v1/transaction/:transaction_id/tracking/renew',
    {
      schema: operation({
        id: 'renewTrackingLink',
        summary: 'Renew tracking link',
        description:
          'Replaces the tracking link of the transaction with a new one (a link that reached the wrong person); the previous link stops working at once and its page answers 404. Takes no body.',
        tags,
        params: TransactionParams,
        response: Ref(TrackingLinkResponse),
        problems: ['transaction_not_found'],
        idempotent: true
      })
    },
    (request) => tracking.renew(request.params.transaction_id, callerOf(request))
  )
}

/**
 * What the tracking page reads. Outside /v1 and without credentials: the customer following the
 * link holds no key, the unguessable token is the credential (like POST /reset-password, D-37).
 */
export function trackingStatusRoutes(app: App, tracking: TrackingService, limiter: RateLimitStore): void {
  app.post(
    '/track/:token/status',
    {
      onRequest: callsPerAddress(limiter, LIMITS.trackingCallsPerAddress),
      schema: operation({
        id: 'getTrackingStatus',
        summary: 'Tracking page status',
        description:
          "What the page of GET /track/{token} shows: the service name, the current step and its progress bar, and the customer's journey (oldest first: placed, each step reached, closed, reopened; no actors, no note or date edits, no receipt changes, no `tracked` entries). Nothing about the customer, the receipt or the note. No credentials: the token is the credential; an unknown or replaced token is 404 `transaction_not_found`. At most 60 calls per client address per minute. Takes no body.",
        tags,
        params: TokenParams,
        response: Ref(TrackingStatusResponse),
        problems: ['transaction_not_found']
      })
    },
    async (request, reply) => {
      reply.header('referrer-policy', 'no-referrer')
      reply.header('cache-control', 'no-store')
      return tracking.status(request.params.token)
    }
  )
}
