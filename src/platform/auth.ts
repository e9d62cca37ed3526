import type { FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { constantTimeEqual, DUMMY_PASSWORD_HASH, sha256Hex, verifyPassword } from '../common/crypto.js'
import { normalizeEmail } from '../common/email.js'
import type { App } from './app-types.js'
import { type BasicCredentials, parseBasicAuthorization } from './basic-auth.js'
import type { VerifiedCredentialCache } from './credential-cache.js'
import { type ApiKeyRole, type CallerClass, callerClass, type Principal } from './principal.js'
import { problems } from './problems.js'
import type { RateLimitStore } from './rate-limit.js'
import { addressCounterKey, counterKey, LIMITS } from './rate-limit.rules.js'
import { addProblems } from './schemas.js'

type StoredApiKey = { role: ApiKeyRole; name: string; secret_hash: string; revoked_at: number | null }
type StoredLogin = { id: string; password_hash: string | null }

/** The stored side of credentials, read by the authenticator on every authenticated request. */
export interface CredentialStore {
  findApiKey(id: string): Promise<StoredApiKey | undefined>
  findCustomerLogin(email: string): Promise<StoredLogin | undefined>
  /** What `findApiKey` would answer, when it is known without reading (`{ value }`); else undefined. */
  apiKeyInMemory?(id: string): { value: StoredApiKey | undefined } | undefined
  /** What `findCustomerLogin` would answer, when it is known without reading; else undefined. */
  customerLoginInMemory?(email: string): { value: StoredLogin | undefined } | undefined
}

/** Checks HTTP Basic credentials (D-10 to D-14) and customer passwords for sign-in (D-35). */
export class Authenticator {
  private readonly verifying = new Map<string, Promise<boolean | number>>()
  // The same checks by e-mail and password, for requests that meet the limit before reading the customer.
  private readonly checksByEmail = new Map<string, { customerId: string; outcome: Promise<boolean | number> }>()

  constructor(
    private readonly store: CredentialStore,
    private readonly cache: VerifiedCredentialCache,
    // In memory or shared through Redis (D-14); a store that can answer at once offers `hasRoomNow`.
    private readonly limiter: RateLimitStore
  ) {}

  /**
   * The principal of a request's Basic credentials; 401 (or 429 after too many failures) otherwise.
   * Answered at once, without a promise, when nothing has to be waited for (a kept key; a kept
   * customer login with a verified password and counters that answer at once); a refusal is then
   * thrown, else the promise rejects.
   */
  authenticate(authorization: string | undefined, clientAddress: string): Principal | Promise<Principal> {
    const credentials = parseBasicAuthorization(authorization)
    if (credentials === undefined) throw problems.unauthenticated()
    // Key ids never contain '@'; e-mail addresses always do.
    if (!credentials.user.includes('@')) {
      // A key read since the data last changed is decided at once, refusals too: the same check.
      const knownKey = this.store.apiKeyInMemory?.(credentials.user)
      if (knownKey !== undefined) return keyPrincipal(credentials, knownKey.value)
      return this.store.findApiKey(credentials.user).then((key) => keyPrincipal(credentials, key))
    }
    const addressKey = addressFailKey(clientAddress)
    if (this.limiter.hasRoomNow?.(addressKey, LIMITS.failedCredentialsPerAddress.limit) === true) {
      return this.customerPrincipal(credentials, addressKey)
    }
    return this.customerPrincipalAfterAddressCheck(credentials, addressKey)
  }

  /** Failed customer credentials count per address too, so guessing across many e-mails is bounded (D-14). */
  private async customerPrincipalAfterAddressCheck(credentials: BasicCredentials, addressKey: string): Promise<Principal> {
    const { limit, windowMs } = LIMITS.failedCredentialsPerAddress
    const address = await this.limiter.exhausted(addressKey, limit, windowMs)
    if (!address.allowed) throw problems.rateLimited(address.retryAfterSeconds)
    return this.customerPrincipal(credentials, addressKey)
  }

  /** The customer's principal when the password matches; else the failure counts against the address and 401. */
  private customerPrincipal(credentials: BasicCredentials, addressKey: string): Principal | Promise<Principal> {
    const checked = this.customerIdFor(credentials.user, credentials.password)
    if (typeof checked === 'string') return { kind: 'customer', customerId: checked }
    return checked.then(async (customerId) => {
      if (customerId !== null) return { kind: 'customer', customerId }
      const { limit, windowMs } = LIMITS.failedCredentialsPerAddress
      await this.limiter.hit(addressKey, limit, windowMs)
      throw problems.unauthenticated()
    })
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
    return this.customerIdFor(rawEmail, password)
  }

  /** `checkCustomerPassword`, answered at once (a string) when counters, login and password are known without waiting. */
  private customerIdFor(rawEmail: string, password: string): string | Promise<string | null> {
    const email = normalizeEmail(rawEmail)
    const failKey = emailFailKey(email)
    if (this.limiter.hasRoomNow?.(failKey, LIMITS.failedSignInsPerEmail.limit) !== true) {
      return this.checkAfterFailureCount(email, password, failKey)
    }
    const knownLogin = this.store.customerLoginInMemory?.(email)
    if (knownLogin !== undefined) return this.passwordMatch(knownLogin.value, password, failKey)
    return this.store.findCustomerLogin(email).then((found) => this.passwordMatch(found, password, failKey))
  }

  private async checkAfterFailureCount(email: string, password: string, failKey: string): Promise<string | null> {
    const { limit, windowMs } = LIMITS.failedSignInsPerEmail
    const failures = await this.limiter.exhausted(failKey, limit, windowMs)
    if (!failures.allowed) {
      // The tenth slot may be held by the check of this very password, still running: wait for it.
      const running = this.checksByEmail.get(`${failKey}\n${this.cache.fingerprint(password)}`)
      if (running === undefined) throw problems.rateLimited(failures.retryAfterSeconds)
      const outcome = await running.outcome
      if (typeof outcome === 'number') throw problems.rateLimited(outcome)
      return outcome ? running.customerId : null
    }
    return this.passwordMatch(await this.store.findCustomerLogin(email), password, failKey)
  }

  /** Given the stored login (undefined: unknown e-mail), the customer id when the password matches, else null. */
  private passwordMatch(found: StoredLogin | undefined, password: string, failKey: string): string | Promise<string | null> {
    // A customer without a password cannot authenticate (D-10): checked like an unknown e-mail.
    if (found?.password_hash == null) return this.refuseWithoutPassword(password, failKey)
    const customerId = found.id
    const hash = found.password_hash
    const state = this.cache.check(customerId, hash, password)
    if (state !== 'miss') {
      if (state === 'refresh') void this.verifyOnce(customerId, hash, password, null).catch(() => {})
      return customerId
    }
    return this.verifyOnce(customerId, hash, password, failKey).then((outcome) => {
      if (typeof outcome === 'number') throw problems.rateLimited(outcome)
      return outcome ? customerId : null
    })
  }

  /** An unknown e-mail, or a customer without a password: a failure, after the same slow hash as a wrong password. */
  private async refuseWithoutPassword(password: string, failKey: string): Promise<null> {
    const reserved = await this.reserveFailure(failKey)
    if (reserved !== true) throw problems.rateLimited(reserved)
    await verifyPassword(password, DUMMY_PASSWORD_HASH)
    return null
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

// The counters of D-14, one place for their keys: every check of one counter must read the same key.
const addressFailKey = (clientAddress: string) => addressCounterKey(LIMITS.failedCredentialsPerAddress, clientAddress)
const emailFailKey = (email: string) => counterKey(LIMITS.failedSignInsPerEmail, email)

// Compared against when the key id is unknown, so a miss does the same work as a wrong secret.
const UNKNOWN_KEY_HASH = sha256Hex('no such key')

/** The principal of an API key's credentials, given the stored key (undefined: no such key); else 401. */
function keyPrincipal(credentials: BasicCredentials, key: StoredApiKey | undefined): Principal {
  // The hash is compared even for an unknown key, so a miss costs what a wrong secret costs.
  const matches = constantTimeEqual(sha256Hex(credentials.password), key?.secret_hash ?? UNKNOWN_KEY_HASH)
  if (key === undefined || key.revoked_at !== null || !matches) throw problems.unauthenticated()
  return { kind: 'key', role: key.role, keyId: credentials.user, name: key.name }
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
