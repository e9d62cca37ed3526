import type { onRequestAsyncHookHandler } from 'fastify'
import { clientAddressKey } from './client-address.js'
import { problems } from './problems.js'
import type { RateLimitStore } from './rate-limit.js'

/** One rate limit: the name its counters are kept under, and at most `limit` events per `windowMs`. */
export interface Limit {
  readonly name: string
  readonly limit: number
  readonly windowMs: number
}

/** Every rate limit, each with its own counters (D-14; SECURITY.md "Rate limits"). */
export const LIMITS = {
  /** Failed sign-ins per e-mail, through sign-in or customer Basic credentials (D-14). */
  failedSignInsPerEmail: { name: 'signin-fail', limit: 10, windowMs: 15 * 60_000 },
  /** Failed console sign-ins per e-mail (D-16): D-14's limit, counted apart from customers' sign-ins. */
  failedStaffSignInsPerEmail: { name: 'staff-signin-fail', limit: 10, windowMs: 15 * 60_000 },
  /** Sign-in and password-reset calls per client address, whatever their outcome (D-14). */
  signInOrResetCallsPerAddress: { name: 'signin-calls', limit: 60, windowMs: 60_000 },
  /** Failed customer Basic credentials per client address, so guessing across e-mails is bounded (D-14). */
  failedCredentialsPerAddress: { name: 'basic-fail', limit: 60, windowMs: 60_000 },
  /** Tracking page status reads per client address, so tokens cannot be guessed at speed. */
  trackingCallsPerAddress: { name: 'tracking-calls', limit: 60, windowMs: 60_000 }
} as const satisfies Record<string, Limit>

/** The key of `limit`'s counter for one subject: an e-mail, or a client address (by /64 for IPv6). */
export function counterKey(limit: Limit, subject: string): string {
  return `${limit.name}:${subject}`
}

/** The key of `limit`'s counter for a client address: IPv6 by its /64 prefix (D-14). */
export function addressCounterKey(limit: Limit, ip: string | undefined): string {
  return counterKey(limit, clientAddressKey(ip))
}

/**
 * An onRequest hook counting every call of its routes per client address under `limit`, whatever
 * their outcome, before the body is read; past the limit, 429 with Retry-After until the window ends.
 */
export function callsPerAddress(store: RateLimitStore, limit: Limit): onRequestAsyncHookHandler {
  return async (request) => {
    // Awaited: with REDIS_URL the count is shared by every API process.
    const decision = await store.hit(addressCounterKey(limit, request.ip), limit.limit, limit.windowMs)
    if (!decision.allowed) throw problems.rateLimited(decision.retryAfterSeconds)
  }
}
