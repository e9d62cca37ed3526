import type { onRequestAsyncHookHandler } from 'fastify'
import { problems } from '../../platform/problems.js'
import { LIMITS, type RateLimitStore } from '../../platform/rate-limit.js'

/**
 * D-14: at most 60 sign-in and password-reset calls per client address per minute, counted
 * whatever their outcome; past that, 429 with Retry-After until the minute is over. Runs after the
 * scope has checked credentials, before the body is read.
 */
export function signInCallsPerAddress(limiter: RateLimitStore): onRequestAsyncHookHandler {
  const { limit, windowMs } = LIMITS.signInCallsPerAddress
  return async (request) => {
    // Awaited: with REDIS_URL the count is shared by every API process (issue 10).
    const decision = await limiter.hit(`signin-calls:${request.ip}`, limit, windowMs)
    if (!decision.allowed) throw problems.rateLimited(decision.retryAfterSeconds)
  }
}
