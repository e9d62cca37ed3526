import type { onRequestAsyncHookHandler } from 'fastify'
import { problems } from '../../platform/problems.js'
import { LIMITS, type RateLimitStore } from '../../platform/rate-limit.js'

/**
 * The public status read is limited per client address like sign-in (D-14): 60 calls a minute,
 * counted whatever their outcome, so tokens cannot be guessed at speed; past that, 429 with
 * Retry-After until the minute is over. Its own counter: a page polling never locks anyone out
 * of signing in.
 */
export function trackingCallsPerAddress(limiter: RateLimitStore): onRequestAsyncHookHandler {
  const { limit, windowMs } = LIMITS.signInCallsPerAddress
  return async (request) => {
    // Awaited: with REDIS_URL the count is shared by every API process (issue 10).
    const decision = await limiter.hit(`tracking-calls:${request.ip}`, limit, windowMs)
    if (!decision.allowed) throw problems.rateLimited(decision.retryAfterSeconds)
  }
}
