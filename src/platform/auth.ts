import type { FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { constantTimeEqual, DUMMY_PASSWORD_HASH, sha256Hex, verifyPassword } from '../common/crypto.js'
import { normalizeEmail } from '../common/email.js'
import type { ApiKeyRole } from '../modules/api-keys/api-keys.table.js'
import type { App } from './app-types.js'
import { type BasicCredentials, parseBasicAuthorization } from './basic-auth.js'
import type { VerifiedCredentialCache } from './credential-cache.js'
import { type CallerClass, callerClass, type Principal } from './principal.js'
import { problems } from './problems.js'
import { RateLimiter, type RateLimitStore } from './rate-limit.js'
import { addressCounterKey, counterKey, LIMITS } from './rate-limit.rules.js'
import { addProblems } from './schemas.js'

type StoredApiKey = { role: ApiKeyRole; secret_hash: string; revoked_at: number | null }
type StoredLogin = { id: string; password_hash: string | null }

/** The stored side of credentials, read by the authenticator on every authenticated request. */
export interface CredentialStore {
  findApiKey(id: string): Promise<StoredApiKey | undefined>
  findCustomerLogin(email: string): Promise<StoredLogin | undefined>
  /** What `findApiKey` would answer, when it is known without reading (`{ value }`); else undefined. */
  keptApiKey?(id: string): { value: StoredApiKey | undefined } | undefined
  /** What `findCustomerLogin` would answer, when it is known without reading; else undefined. */
  keptCustomerLogin?(email: string): { value: StoredLogin | undefined } | undefined
}

/** Checks HTTP Basic credentials (D-10 to D-14) and customer passwords for sign-in (D-35). */
export class Authenticator {
  private readonly verifying = new Map<string, Promise<boolean | number>>()
  // The same checks by e-mail and password, for requests that meet the limit before reading the customer.
  private readonly checksByEmail = new Map<string, { customerId: string; outcome: Promise<boolean | number> }>()
  // The rate-limit counters when they answer at once (this process's memory, not Redis): see `customerAdmittedAtOnce`.
  private readonly countsInMemory: RateLimiter | undefined

  constructor(
    private readonly store: CredentialStore,
    private readonly cache: VerifiedCredentialCache,
    // Issue 10: in memory, or shared through Redis. Its answers may be promises; the two checks on
    // every customer request await only those, as awaiting a plain value costs a microtask turn.
    private readonly limiter: RateLimitStore
  ) {
    this.countsInMemory = limiter instanceof RateLimiter ? limiter : undefined
  }

  /**
   * The principal of a request's Basic credentials; 401 (or 429 after too many failures) otherwise.
   * Answered at once, without a promise, when nothing has to be waited for (a kept key, or see
   * `customerAdmittedAtOnce`);
   * a refusal is then thrown, else the promise rejects.
   */
  authenticate(authorization: string | undefined, clientAddress: string): Principal | Promise<Principal> {
    const credentials = parseBasicAuthorization(authorization)
    if (credentials === undefined) throw problems.unauthenticated()
    // Key ids never contain '@'; e-mail addresses always do.
    if (!credentials.user.includes('@')) {
      // A key read since the data last changed is decided at once, refusals too: the same check.
      const kept = this.store.keptApiKey?.(credentials.user)
      if (kept !== undefined) return keyPrincipal(credentials, kept.value)
      return this.store.findApiKey(credentials.user).then((key) => keyPrincipal(credentials, key))
    }
    return this.customerAdmittedAtOnce(credentials, clientAddress) ?? this.authenticateCustomer(credentials, clientAddress)
  }

  /**
   * Issue 7: the usual customer request (a login read since the data last changed, a password
   * verified in the last 50 s, counters in memory and under their limits) is admitted without a
   * single promise: that path is most of what a read costs beyond its SQL. Only an admission is
   * decided here, with the same checks as `authenticateCustomer` in the same order; anything else
   * (unknown, wrong, limited, not yet kept, due for a re-check, Redis counters) is undefined and
   * takes that slow path, which decides it as it always has (a slow hash, whatever the outcome).
   */
  private customerAdmittedAtOnce(credentials: BasicCredentials, clientAddress: string): Principal | undefined {
    const counts = this.countsInMemory
    if (counts === undefined) return undefined
    if (!counts.hasRoom(addressFailKey(clientAddress), LIMITS.failedCredentialsPerAddress.limit)) return undefined
    const email = normalizeEmail(credentials.user)
    if (!counts.hasRoom(emailFailKey(email), LIMITS.failedSignInsPerEmail.limit)) return undefined
    const login = this.store.keptCustomerLogin?.(email)?.value
    if (login?.password_hash == null) return undefined
    return this.cache.check(login.id, login.password_hash, credentials.password) === 'valid'
      ? { kind: 'customer', customerId: login.id }
      : undefined
  }

  private async authenticateCustomer(credentials: BasicCredentials, clientAddress: string): Promise<Principal> {
    // Failed customer credentials count per address too, so guessing across many e-mails is bounded.
    const { limit, windowMs } = LIMITS.failedCredentialsPerAddress
    const addressCheck = this.limiter.exhausted(addressFailKey(clientAddress), limit, windowMs)
    const address = addressCheck instanceof Promise ? await addressCheck : addressCheck
    if (!address.allowed) throw problems.rateLimited(address.retryAfterSeconds)
    const customerId = await this.checkCustomerPassword(credentials.user, credentials.password)
    if (customerId === null) {
      await this.limiter.hit(addressFailKey(clientAddress), limit, windowMs)
      throw problems.unauthenticated()
    }
    return { kind: 'customer', customerId }
  }

  /**
   * The customer id when the e-mail and password match, else null (D-35). An unknown e-mail spends
   * a slow hash too, so both failures take about as long. After 10 failures for one e-mail in
   * 15 minutes every attempt is 429 until the window ends (D-14); failures through Basic
   * credentials count as failed sign-ins.
   *
   * Each slow check first reserves one failure and gives it back if the password matches, so many
   * guesses sent at once cannot all pass the limit before any of them has failed: at most 10 are
   * ever checked. A password the cache already knows needs no reservation: it cannot fail. Nor does
   * a request whose very password is being checked already (a customer's app opening with many
   * requests at once): it waits for that check, one guess however often it is sent. A reservation
   * refused at the limit is given back too, so only real failures are ever counted.
   */
  async checkCustomerPassword(rawEmail: string, password: string): Promise<string | null> {
    const email = normalizeEmail(rawEmail)
    const { limit, windowMs } = LIMITS.failedSignInsPerEmail
    const failKey = emailFailKey(email)
    const failuresCheck = this.limiter.exhausted(failKey, limit, windowMs)
    const failures = failuresCheck instanceof Promise ? await failuresCheck : failuresCheck
    if (!failures.allowed) {
      // The tenth slot may be held by the check of this very password, still running: wait for it.
      const running = this.checksByEmail.get(`${failKey}\n${this.cache.fingerprint(password)}`)
      if (running === undefined) throw problems.rateLimited(failures.retryAfterSeconds)
      const outcome = await running.outcome
      if (typeof outcome === 'number') throw problems.rateLimited(outcome)
      return outcome ? running.customerId : null
    }

    const found = await this.store.findCustomerLogin(email)
    // A customer without a password cannot authenticate (D-10): checked like an unknown e-mail.
    if (found?.password_hash == null) {
      const reserved = await this.reserveFailure(failKey)
      if (reserved !== true) throw problems.rateLimited(reserved)
      await verifyPassword(password, DUMMY_PASSWORD_HASH)
      return null
    }
    const login = { id: found.id, hash: found.password_hash }
    const state = this.cache.check(login.id, login.hash, password)
    if (state !== 'miss') {
      if (state === 'refresh') void this.verifyOnce(login.id, login.hash, password, null).catch(() => {})
      return login.id
    }
    const outcome = await this.verifyOnce(login.id, login.hash, password, failKey)
    if (typeof outcome === 'number') throw problems.rateLimited(outcome)
    return outcome ? login.id : null
  }

  /** Counts one failure ahead of a check: true, or the seconds to wait when the limit is reached (then nothing is counted). */
  private async reserveFailure(failKey: string): Promise<true | number> {
    const { limit, windowMs } = LIMITS.failedSignInsPerEmail
    const reserved = await this.limiter.hit(failKey, limit, windowMs)
    if (reserved.allowed) return true
    await this.limiter.refund(failKey)
    return reserved.retryAfterSeconds
  }

  /**
   * One slow hash per credential at a time: concurrent requests with the same e-mail, password and
   * stored hash share it, reservation included, so 32 connections of one customer cost one scrypt
   * and one reservation, not 32. The entry is set before anything is awaited, so a request arriving
   * a moment later always finds it. `failKey` null: a refresh of a cached password, nothing reserved.
   * Answers whether the password matched, or the seconds to wait when the limit was reached.
   */
  private verifyOnce(customerId: string, storedHash: string, password: string, failKey: string | null): Promise<boolean | number> {
    const fingerprint = this.cache.fingerprint(password)
    const key = `${customerId}\n${storedHash}\n${fingerprint}`
    const pending = this.verifying.get(key)
    if (pending !== undefined) return pending
    const check = (async () => {
      if (failKey !== null) {
        const reserved = await this.reserveFailure(failKey)
        if (reserved !== true) return reserved
      }
      const matches = await verifyPassword(password, storedHash)
      if (matches) {
        this.cache.remember(customerId, storedHash, password)
        if (failKey !== null) await this.limiter.refund(failKey)
      }
      return matches
    })()
    this.verifying.set(key, check)
    const byEmail = failKey === null ? null : `${failKey}\n${fingerprint}`
    if (byEmail !== null) this.checksByEmail.set(byEmail, { customerId, outcome: check })
    void check
      .finally(() => {
        this.verifying.delete(key)
        if (byEmail !== null && this.checksByEmail.get(byEmail)?.outcome === check) this.checksByEmail.delete(byEmail)
      })
      .catch(() => {})
    return check
  }

  /** Forgets a customer's verified credential at once (their password changed). */
  forgetCustomer(customerId: string): void {
    this.cache.forget(customerId)
  }
}

// The counters of D-14, one place for their keys: the check at once and the full check must read the same.
const addressFailKey = (clientAddress: string) => addressCounterKey(LIMITS.failedCredentialsPerAddress, clientAddress)
const emailFailKey = (email: string) => counterKey(LIMITS.failedSignInsPerEmail, email)

// Compared against when the key id is unknown, so a miss does the same work as a wrong secret.
const UNKNOWN_KEY_HASH = sha256Hex('no such key')

/** The principal of an API key's credentials, given the stored key (undefined: no such key); else 401. */
function keyPrincipal(credentials: BasicCredentials, key: StoredApiKey | undefined): Principal {
  // The hash is compared even for an unknown key, so a miss costs what a wrong secret costs.
  const matches = constantTimeEqual(sha256Hex(credentials.password), key?.secret_hash ?? UNKNOWN_KEY_HASH)
  if (key === undefined || key.revoked_at !== null || !matches) throw problems.unauthenticated()
  return { kind: 'key', role: key.role, keyId: credentials.user }
}

const CALLER_NAMES: Record<CallerClass, string> = { app: 'app keys', customer: 'customers', staff: 'staff and admin keys' }

/**
 * A scope of routes open to the given caller classes of D-12. Every route registered inside it
 * requires Basic credentials of one of those classes: 401 without valid ones, 403 for another class.
 * Finer rules (a customer's own records only) are the services'.
 */
export function callersScope(auth: Authenticator, callers: readonly CallerClass[], routes: (scope: App) => void) {
  return async function scope(app: App): Promise<void> {
    app.addHook('onRoute', (route) => {
      if (route.schema === undefined) return
      const schema = route.schema as Record<string, unknown>
      schema.security = [{ basicAuth: [] }]
      schema['x-callers'] = [...callers]
      const who = `Callers (D-12): ${callers.map((c) => CALLER_NAMES[c]).join(', ')}.`
      schema.description = typeof schema.description === 'string' ? `${who}\n\n${schema.description}` : who
      addProblems(route.schema, callers.length === 3 ? ['unauthenticated'] : ['unauthenticated', 'forbidden'])
    })
    // Callback style, so a request admitted at once (`authenticate` answering without a promise)
    // goes on to its handler without waiting for a microtask turn.
    const admit = (request: FastifyRequest, principal: Principal, done: HookHandlerDoneFunction): void => {
      if (!callers.includes(callerClass(principal))) {
        done(problems.forbidden())
        return
      }
      request.principal = principal
      done()
    }
    app.addHook('onRequest', (request, _reply, done) => {
      let outcome: Principal | Promise<Principal>
      try {
        outcome = auth.authenticate(request.headers.authorization, request.ip)
      } catch (error) {
        return done(error as Error)
      }
      if (outcome instanceof Promise) outcome.then((principal) => admit(request, principal, done), done)
      else admit(request, outcome, done)
    })
    routes(app)
  }
}
