import type { IncomingHttpHeaders } from 'node:http'
import { DUMMY_PASSWORD_HASH, verifyPassword } from '../common/crypto.js'
import { normalizeEmail } from '../common/email.js'
import { type BasicCredentials, keyPrincipal, parseBasicAuthorization, type StoredApiKey } from './basic-auth.js'
import type { VerifiedCredentialCache } from './credential-cache.js'
import type { Principal } from './principal.js'
import { problems } from './problems.js'
import type { RateLimitStore } from './rate-limit.js'
import { addressCounterKey, counterKey, LIMITS, type Limit } from './rate-limit.rules.js'
import { type SessionAuthenticator, sessionTokenOf } from './session-auth.js'

type StoredLogin = { id: string; password_hash: string | null }

/** The stored side of credentials, read by the authenticator on every authenticated request. */
export interface CredentialStore {
  findApiKey(id: string): Promise<StoredApiKey | undefined>
  findCustomerLogin(email: string): Promise<StoredLogin | undefined>
  /** What `findApiKey` would answer, when it is known without reading (`{ value }`); else undefined. */
  apiKeyInMemory?(id: string): { value: StoredApiKey | undefined } | undefined
  /** What `findCustomerLogin` would answer, when it is known without reading; else undefined. */
  customerLoginInMemory?(email: string): { value: StoredLogin | undefined } | undefined
  /** The login of an active staff user (D-15) by e-mail; a disabled user's is not found. */
  findStaffLogin?(email: string): Promise<StoredLogin | undefined>
}

/** Where a password is checked: customers (sign-in, Basic credentials) or staff users (console sign-in, D-16). */
interface LoginDoor {
  readonly failures: Limit
  find(email: string): Promise<StoredLogin | undefined>
  inMemory?(email: string): { value: StoredLogin | undefined } | undefined
}

/** A failure counter of one e-mail at one door (D-14). */
interface FailCounter {
  readonly key: string
  readonly limit: Limit
}

/** Checks HTTP Basic credentials and console sessions (D-10 to D-16), and passwords for sign-in (D-35, D-16). */
export class Authenticator {
  private readonly verifying = new Map<string, Promise<boolean | number>>()
  // The same checks by e-mail and password, for requests that meet the limit before reading the customer.
  private readonly checksByEmail = new Map<string, { customerId: string; outcome: Promise<boolean | number> }>()
  private readonly customers: LoginDoor
  private readonly staff: LoginDoor

  constructor(
    private readonly store: CredentialStore,
    private readonly cache: VerifiedCredentialCache,
    // In memory or shared through Redis (D-14); a store that can answer at once offers `hasRoomNow`.
    private readonly limiter: RateLimitStore,
    // Console sessions (D-16); without them a session cookie is no credential.
    private readonly sessions?: SessionAuthenticator
  ) {
    this.customers = {
      failures: LIMITS.failedSignInsPerEmail,
      find: (email) => store.findCustomerLogin(email),
      ...(store.customerLoginInMemory === undefined ? {} : { inMemory: (email: string) => store.customerLoginInMemory!(email) })
    }
    this.staff = {
      failures: LIMITS.failedStaffSignInsPerEmail,
      find: (email) => store.findStaffLogin?.(email) ?? Promise.resolve(undefined)
    }
  }

  /**
   * A request's principal. D-16: a request with an Authorization header is judged by it alone;
   * one without it but with a session cookie is that session's staff user's (CSRF token checked).
   */
  authenticateRequest(headers: IncomingHttpHeaders, clientAddress: string): Principal | Promise<Principal> {
    if (headers.authorization === undefined && this.sessions !== undefined) {
      const token = sessionTokenOf(headers.cookie)
      if (token !== undefined) return this.sessions.authenticate(token, headers['x-csrf-token'])
      // A console tab whose cookie is gone (signed out elsewhere, expired): its session has ended.
      if (headers['x-csrf-token'] !== undefined) throw problems.sessionEnded()
    }
    return this.authenticate(headers.authorization, clientAddress)
  }

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
    const checked = this.loginIdFor(this.customers, credentials.user, credentials.password)
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
    return this.loginIdFor(this.customers, rawEmail, password)
  }

  /**
   * The staff user's id when the e-mail and password of an active staff user match, else null
   * (D-16): the same slow hash for an unknown e-mail, the same limits as customers' sign-in (D-14),
   * counted apart, so neither door can lock the other out.
   */
  async checkStaffPassword(rawEmail: string, password: string): Promise<string | null> {
    return this.loginIdFor(this.staff, rawEmail, password)
  }

  /** A password check at a door, answered at once (a string) when counters, login and password are known without waiting. */
  private loginIdFor(door: LoginDoor, rawEmail: string, password: string): string | Promise<string | null> {
    const email = normalizeEmail(rawEmail)
    const fail: FailCounter = { key: counterKey(door.failures, email), limit: door.failures }
    if (this.limiter.hasRoomNow?.(fail.key, fail.limit.limit) !== true) {
      return this.checkAfterFailureCount(door, email, password, fail)
    }
    const knownLogin = door.inMemory?.(email)
    if (knownLogin !== undefined) return this.passwordMatch(knownLogin.value, password, fail)
    return door.find(email).then((found) => this.passwordMatch(found, password, fail))
  }

  private async checkAfterFailureCount(door: LoginDoor, email: string, password: string, fail: FailCounter): Promise<string | null> {
    const failures = await this.limiter.exhausted(fail.key, fail.limit.limit, fail.limit.windowMs)
    if (!failures.allowed) {
      // The tenth slot may be held by the check of this very password, still running: wait for it.
      const running = this.checksByEmail.get(`${fail.key}\n${this.cache.fingerprint(password)}`)
      if (running === undefined) throw problems.rateLimited(failures.retryAfterSeconds)
      const outcome = await running.outcome
      if (typeof outcome === 'number') throw problems.rateLimited(outcome)
      return outcome ? running.customerId : null
    }
    return this.passwordMatch(await door.find(email), password, fail)
  }

  /** Given the stored login (undefined: unknown e-mail), its id when the password matches, else null. */
  private passwordMatch(found: StoredLogin | undefined, password: string, fail: FailCounter): string | Promise<string | null> {
    // A customer without a password cannot authenticate (D-10): checked like an unknown e-mail.
    if (found?.password_hash == null) return this.refuseWithoutPassword(password, fail)
    const customerId = found.id
    const hash = found.password_hash
    const state = this.cache.check(customerId, hash, password)
    if (state !== 'miss') {
      if (state === 'refresh') void this.verifyOnce(customerId, hash, password, null).catch(() => {})
      return customerId
    }
    return this.verifyOnce(customerId, hash, password, fail).then((outcome) => {
      if (typeof outcome === 'number') throw problems.rateLimited(outcome)
      return outcome ? customerId : null
    })
  }

  /** An unknown e-mail, or a customer without a password: a failure, after the same slow hash as a wrong password. */
  private async refuseWithoutPassword(password: string, fail: FailCounter): Promise<null> {
    const reserved = await this.reserveFailure(fail)
    if (reserved !== true) throw problems.rateLimited(reserved)
    await verifyPassword(password, DUMMY_PASSWORD_HASH)
    return null
  }

  /** Counts one failure ahead of a check: true, or the seconds to wait when the limit is reached (then nothing is counted). */
  private async reserveFailure(fail: FailCounter): Promise<true | number> {
    const reserved = await this.limiter.hit(fail.key, fail.limit.limit, fail.limit.windowMs)
    if (reserved.allowed) return true
    await this.limiter.refund(fail.key)
    return reserved.retryAfterSeconds
  }

  /**
   * One slow hash per credential at a time: concurrent requests with the same e-mail, password and
   * stored hash share it, reservation included, so 32 connections of one customer cost one scrypt
   * and one reservation, not 32. The entry is set before anything is awaited, so a request arriving
   * a moment later always finds it. `fail` null: a refresh of a cached password, nothing reserved.
   * Answers whether the password matched, or the seconds to wait when the limit was reached.
   */
  private verifyOnce(customerId: string, storedHash: string, password: string, fail: FailCounter | null): Promise<boolean | number> {
    const fingerprint = this.cache.fingerprint(password)
    const key = `${customerId}\n${storedHash}\n${fingerprint}`
    const pending = this.verifying.get(key)
    if (pending !== undefined) return pending
    const check = (async () => {
      if (fail !== null) {
        const reserved = await this.reserveFailure(fail)
        if (reserved !== true) return reserved
      }
      const matches = await verifyPassword(password, storedHash)
      if (matches) {
        this.cache.remember(customerId, storedHash, password)
        if (fail !== null) await this.limiter.refund(fail.key)
      }
      return matches
    })()
    this.verifying.set(key, check)
    const byEmail = fail === null ? null : `${fail.key}\n${fingerprint}`
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

// The address counter of D-14, one place for its key: every check of one counter must read the same key.
const addressFailKey = (clientAddress: string) => addressCounterKey(LIMITS.failedCredentialsPerAddress, clientAddress)
