import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ManualClock } from '../../src/common/clock.js'
import { hashPassword, sha256Hex } from '../../src/common/crypto.js'
import { Authenticator } from '../../src/platform/auth.js'
import { VerifiedCredentialCache } from '../../src/platform/credential-cache.js'
import { RateLimiter } from '../../src/platform/rate-limit.js'
import { LIMITS } from '../../src/platform/rate-limit.rules.js'
import { basic, describeEachDialect } from '../helpers/app.js'
import { ok, problem } from '../helpers/assertions.js'
import { customerWithPassword } from '../modules/customers/support.js'

const HASH_A = 'scrypt$32768$8$1$saltA$hashA'
const HASH_B = 'scrypt$32768$8$1$saltB$hashB'

describe('VerifiedCredentialCache (D-13)', () => {
  it('should know nothing before a password was verified', () => {
    const cache = new VerifiedCredentialCache(new ManualClock())
    assert.equal(cache.has('cus_1', HASH_A, 'secret-pw'), false)
  })

  it('should remember a verified password against its stored hash only', () => {
    const cache = new VerifiedCredentialCache(new ManualClock())
    cache.remember('cus_1', HASH_A, 'secret-pw')
    assert.equal(cache.has('cus_1', HASH_A, 'secret-pw'), true)
    assert.equal(cache.has('cus_1', HASH_A, 'other-pw'), false)
    assert.equal(cache.has('cus_2', HASH_A, 'secret-pw'), false)
  })

  it('should forget at once when the stored hash changed (a password change in any process)', () => {
    const cache = new VerifiedCredentialCache(new ManualClock())
    cache.remember('cus_1', HASH_A, 'secret-pw')
    assert.equal(cache.has('cus_1', HASH_B, 'secret-pw'), false)
    // And the stale entry is gone, even for the old hash.
    assert.equal(cache.has('cus_1', HASH_A, 'secret-pw'), false)
  })

  it('should keep an entry for less than 60 s', () => {
    const clock = new ManualClock()
    const cache = new VerifiedCredentialCache(clock)
    cache.remember('cus_1', HASH_A, 'secret-pw')
    clock.advance(59_999)
    assert.equal(cache.has('cus_1', HASH_A, 'secret-pw'), true)
    clock.advance(1)
    assert.equal(cache.has('cus_1', HASH_A, 'secret-pw'), false)
    clock.advance(-30_000)
    assert.equal(cache.has('cus_1', HASH_A, 'secret-pw'), false, 'an expired entry is dropped, not kept for later')
  })

  it('should start the 60 s again when remembered again', () => {
    const clock = new ManualClock()
    const cache = new VerifiedCredentialCache(clock)
    cache.remember('cus_1', HASH_A, 'secret-pw')
    clock.advance(50_000)
    cache.remember('cus_1', HASH_A, 'secret-pw')
    clock.advance(50_000)
    assert.equal(cache.has('cus_1', HASH_A, 'secret-pw'), true)
  })

  it('should forget a customer when told', () => {
    const cache = new VerifiedCredentialCache(new ManualClock())
    cache.remember('cus_1', HASH_A, 'secret-pw')
    cache.forget('cus_1')
    assert.equal(cache.has('cus_1', HASH_A, 'secret-pw'), false)
  })

  it('should hold at most maxEntries, dropping the oldest', () => {
    const cache = new VerifiedCredentialCache(new ManualClock(), 2)
    cache.remember('cus_1', HASH_A, 'pw1')
    cache.remember('cus_2', HASH_A, 'pw2')
    cache.remember('cus_3', HASH_A, 'pw3')
    assert.equal(cache.has('cus_1', HASH_A, 'pw1'), false)
    assert.equal(cache.has('cus_2', HASH_A, 'pw2'), true)
    assert.equal(cache.has('cus_3', HASH_A, 'pw3'), true)
  })

  it('should never hold the password itself', () => {
    const cache = new VerifiedCredentialCache(new ManualClock())
    cache.remember('cus_1', HASH_A, 'plain-text-password')
    const entries = (cache as unknown as { entries: Map<string, { digest: Buffer }> }).entries
    for (const entry of entries.values()) {
      assert.ok(!JSON.stringify(entry).includes('plain-text-password'))
      assert.ok(!entry.digest.toString('utf8').includes('plain-text-password'))
    }
  })
})

describeEachDialect('failed Basic customer credentials are rate limited (D-14)', (t) => {
  it('should answer 429 rate_limited with Retry-After after 10 failures for one e-mail, until the window ends', async () => {
    const authorization = basic('guesser@example.com', 'wrong-password')
    for (let i = 1; i <= 10; i++) problem(await t.post('/v1/service/stats', undefined, { auth: authorization }), 'unauthenticated')
    const limited = await t.post('/v1/service/stats', undefined, { auth: authorization })
    const body = problem(limited, 'rate_limited')
    assert.deepEqual(body, {
      type: '/problems/rate_limited',
      title: 'Too Many Requests',
      status: 429,
      detail: 'Too many requests; try again later.',
      code: 'rate_limited'
    })
    const retryAfter = Number(limited.headers['retry-after'])
    assert.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 900, String(limited.headers['retry-after']))
    // The same e-mail in another case is the same account.
    problem(await t.post('/v1/service/stats', undefined, { auth: basic('Guesser@Example.com', 'wrong-password') }), 'rate_limited')
    // API keys are not affected.
    assert.equal((await t.post('/v1/service/stats')).statusCode, 200)

    t.clock.advance(15 * 60_000)
    problem(await t.post('/v1/service/stats', undefined, { auth: authorization }), 'unauthenticated')
  })
})

describe('verified credential refresh window (D-13, performance issue)', () => {
  it('should report refresh in the last 10 s of an entry, and miss after 60 s', () => {
    const clock = new ManualClock()
    const cache = new VerifiedCredentialCache(clock)
    cache.remember('cus_1', 'hash-a', 'secret')
    assert.equal(cache.check('cus_1', 'hash-a', 'secret'), 'valid')
    assert.equal(cache.check('cus_1', 'hash-a', 'wrong'), 'miss')
    clock.advance(50_001)
    assert.equal(cache.check('cus_1', 'hash-a', 'secret'), 'refresh')
    assert.equal(cache.check('cus_1', 'hash-b', 'secret'), 'miss')
    cache.remember('cus_1', 'hash-a', 'secret')
    clock.advance(59_999)
    assert.equal(cache.check('cus_1', 'hash-a', 'secret'), 'refresh')
    clock.advance(1)
    assert.equal(cache.check('cus_1', 'hash-a', 'secret'), 'miss')
  })
})

describe('password checks at once and the failure count (D-13, D-14)', () => {
  const PASSWORD = 'the right password'
  let hash: string
  const authenticator = (clock: ManualClock, limiter: RateLimiter) =>
    new Authenticator(
      {
        findApiKey: async () => undefined,
        findCustomerLogin: async (email) => (email === 'pat@example.com' ? { id: 'cus_pat', password_hash: hash } : undefined)
      },
      new VerifiedCredentialCache(clock),
      limiter
    )

  it('should count no failure for a check refused at the limit, only for wrong passwords', async () => {
    hash ??= await hashPassword(PASSWORD)
    const clock = new ManualClock()
    const limiter = new RateLimiter(clock)
    const auth = authenticator(clock, limiter)
    for (let i = 0; i < 9; i++) assert.equal(await auth.checkCustomerPassword('pat@example.com', `slip ${i}`), null)
    // The right password reserves the tenth failure first; the three guesses behind it are refused.
    const burst = await Promise.allSettled(
      [PASSWORD, 'guess a', 'guess b', 'guess c'].map((password) => auth.checkCustomerPassword('pat@example.com', password))
    )
    assert.deepEqual(
      burst.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : (outcome.reason as { code: string }).code)),
      ['cus_pat', 'rate_limited', 'rate_limited', 'rate_limited']
    )
    // Nine real failures so far: one more is allowed, and it is the tenth.
    const key = `signin-fail:pat@example.com`
    assert.equal(limiter.exhausted(key, LIMITS.failedSignInsPerEmail.limit, LIMITS.failedSignInsPerEmail.windowMs).allowed, true)
    assert.equal(await auth.checkCustomerPassword('pat@example.com', 'the tenth slip'), null)
    assert.equal(limiter.exhausted(key, LIMITS.failedSignInsPerEmail.limit, LIMITS.failedSignInsPerEmail.windowMs).allowed, false)
  })

  it('should let one password sent many times at once wait for its single check, reserving nothing more', async () => {
    hash ??= await hashPassword(PASSWORD)
    const clock = new ManualClock()
    const limiter = new RateLimiter(clock)
    const auth = authenticator(clock, limiter)
    const right = await Promise.all(Array.from({ length: 30 }, () => auth.checkCustomerPassword('pat@example.com', PASSWORD)))
    assert.ok(right.every((id) => id === 'cus_pat'))
    clock.advance(61_000)
    // The same wrong guess thirty times is one guess, one failure.
    const wrong = await Promise.all(Array.from({ length: 30 }, () => auth.checkCustomerPassword('pat@example.com', 'one guess')))
    assert.ok(wrong.every((id) => id === null))
    for (let i = 0; i < 9; i++) assert.equal(await auth.checkCustomerPassword('pat@example.com', `slip ${i}`), null)
    await assert.rejects(auth.checkCustomerPassword('pat@example.com', PASSWORD), { code: 'rate_limited' })
  })
})

describeEachDialect("a customer's requests at once before the password is cached (D-13, D-14)", (t) => {
  it('should answer every one of them, and count none as a failure', async () => {
    const customer = await customerWithPassword(t, 'many requests at once')
    const auth = basic(customer.email, customer.password)
    const reads = await Promise.all(Array.from({ length: 25 }, () => t.post(`/v1/customer/${customer.id}`, undefined, { auth })))
    assert.deepEqual(
      reads.map((r) => r.statusCode),
      Array(25).fill(200)
    )
    t.clock.advance(61_000)
    const signIns = await Promise.all(
      Array.from({ length: 20 }, () => t.post('/v1/customer/signin', { email: customer.email, password: customer.password }))
    )
    assert.deepEqual(
      signIns.map((r) => r.statusCode),
      Array(20).fill(200)
    )
    // All ten failures of D-14 are still to come.
    for (let i = 0; i < 9; i++)
      problem(await t.post('/v1/customer/signin', { email: customer.email, password: `slip ${i}` }), 'invalid_login')
    t.clock.advance(61_000)
    ok(await t.post(`/v1/customer/${customer.id}`, undefined, { auth }))
  })

  it('should answer them all after nine failures too: the tenth slot is held by the check of that same password', async () => {
    const customer = await customerWithPassword(t, 'nine slips then a rush')
    const auth = basic(customer.email, customer.password)
    for (let i = 0; i < 9; i++)
      problem(await t.post('/v1/customer/signin', { email: customer.email, password: `slip ${i}` }), 'invalid_login')
    const signIns = await Promise.all(
      Array.from({ length: 25 }, () => t.post('/v1/customer/signin', { email: customer.email, password: customer.password }))
    )
    assert.deepEqual(
      signIns.map((r) => r.statusCode),
      Array(25).fill(200)
    )
    t.clock.advance(61_000)
    const reads = await Promise.all(Array.from({ length: 25 }, () => t.post(`/v1/customer/${customer.id}`, undefined, { auth })))
    assert.deepEqual(
      reads.map((r) => r.statusCode),
      Array(25).fill(200)
    )
    // Nine failures still: the tenth locks the e-mail, the right password included.
    problem(await t.post('/v1/customer/signin', { email: customer.email, password: 'the tenth slip' }), 'invalid_login')
    problem(await t.post('/v1/customer/signin', { email: customer.email, password: customer.password }), 'rate_limited')
  })
})

describe('requests admitted at once, without a promise (issue 7)', () => {
  const PASSWORD = 'the right password'
  const SECRET = 'the key secret, 32 characters long'
  let hash: string

  /** A store whose kept answers are set by the test, counting the reads it is asked for. */
  function store() {
    const keys = new Map<string, { role: 'staff'; name: string; secret_hash: string; revoked_at: number | null } | undefined>()
    const logins = new Map<string, { id: string; password_hash: string | null } | undefined>()
    const reads = { keys: 0, logins: 0 }
    return {
      keys,
      logins,
      reads,
      findApiKey: async (id: string) => {
        reads.keys++
        return keys.get(id)
      },
      findCustomerLogin: async (email: string) => {
        reads.logins++
        return logins.get(email)
      },
      apiKeyInMemory: (id: string) => (keys.has(id) ? { value: keys.get(id) } : undefined),
      customerLoginInMemory: (email: string) => (logins.has(email) ? { value: logins.get(email) } : undefined)
    }
  }

  async function codeOf(outcome: unknown): Promise<string> {
    assert.ok(outcome instanceof Promise, 'a refusal or a read is answered through a promise')
    return outcome.then(
      () => 'admitted',
      (error: { code: string }) => error.code
    )
  }

  it('should decide a kept API key at once, refusals too, and read a key not kept', async () => {
    const credentials = store()
    const auth = new Authenticator(credentials, new VerifiedCredentialCache(new ManualClock()), new RateLimiter(new ManualClock()))
    credentials.keys.set('key_staff', { role: 'staff', name: 'front desk', secret_hash: sha256Hex(SECRET), revoked_at: null })
    assert.deepEqual(auth.authenticate(basic('key_staff', SECRET), '10.0.0.1'), {
      kind: 'key',
      role: 'staff',
      keyId: 'key_staff',
      name: 'front desk'
    })
    assert.throws(() => auth.authenticate(basic('key_staff', 'a wrong secret'), '10.0.0.1'), { code: 'unauthenticated' })
    credentials.keys.set('key_staff', { role: 'staff', name: 'front desk', secret_hash: sha256Hex(SECRET), revoked_at: 1 })
    assert.throws(() => auth.authenticate(basic('key_staff', SECRET), '10.0.0.1'), { code: 'unauthenticated' })
    // Kept as unknown: refused at once, after the same hash and comparison as a wrong secret.
    credentials.keys.set('key_gone', undefined)
    assert.throws(() => auth.authenticate(basic('key_gone', SECRET), '10.0.0.1'), { code: 'unauthenticated' })
    assert.equal(credentials.reads.keys, 0)
    // Not kept (the data changed since, or PostgreSQL): read, through a promise.
    assert.equal(await codeOf(auth.authenticate(basic('key_never', SECRET), '10.0.0.1')), 'unauthenticated')
    assert.equal(credentials.reads.keys, 1)
    assert.throws(() => auth.authenticate('Bearer x', '10.0.0.1'), { code: 'unauthenticated' })
  })

  it('should admit a customer at once only with a password verified against the kept stored hash', async () => {
    hash ??= await hashPassword(PASSWORD)
    const clock = new ManualClock()
    const credentials = store()
    const auth = new Authenticator(credentials, new VerifiedCredentialCache(clock), new RateLimiter(clock))
    credentials.logins.set('pat@example.com', { id: 'cus_pat', password_hash: hash })
    // Not verified yet: the slow hash, through a promise.
    assert.equal(await codeOf(auth.authenticate(basic('Pat@Example.com', PASSWORD), '10.0.0.1')), 'admitted')
    assert.deepEqual(auth.authenticate(basic('Pat@Example.com', PASSWORD), '10.0.0.1'), { kind: 'customer', customerId: 'cus_pat' })
    const readsBefore = credentials.reads.logins
    assert.deepEqual(auth.authenticate(basic('pat@example.com', PASSWORD), '10.0.0.2'), { kind: 'customer', customerId: 'cus_pat' })
    assert.equal(credentials.reads.logins, readsBefore)
    assert.equal(await codeOf(auth.authenticate(basic('pat@example.com', 'a wrong password'), '10.0.0.1')), 'unauthenticated')
    // A new stored hash (the password changed in another process): the old password is checked again, and fails.
    credentials.logins.set('pat@example.com', { id: 'cus_pat', password_hash: await hashPassword('a new password') })
    assert.equal(await codeOf(auth.authenticate(basic('pat@example.com', PASSWORD), '10.0.0.1')), 'unauthenticated')
    // No password at all: refused as an unknown e-mail is.
    credentials.logins.set('pat@example.com', { id: 'cus_pat', password_hash: null })
    assert.equal(await codeOf(auth.authenticate(basic('pat@example.com', PASSWORD), '10.0.0.1')), 'unauthenticated')
  })

  it('should admit a password due for its re-check at once, and leave an e-mail at its failure limit to the full check (D-13, D-14)', async () => {
    hash ??= await hashPassword(PASSWORD)
    const clock = new ManualClock()
    const credentials = store()
    const limiter = new RateLimiter(clock)
    const auth = new Authenticator(credentials, new VerifiedCredentialCache(clock), limiter)
    credentials.logins.set('pat@example.com', { id: 'cus_pat', password_hash: hash })
    assert.equal(await codeOf(auth.authenticate(basic('pat@example.com', PASSWORD), '10.0.0.1')), 'admitted')
    clock.advance(55_000)
    // In the entry's last 10 s: still admitted at once, the re-check started behind it.
    assert.deepEqual(auth.authenticate(basic('pat@example.com', PASSWORD), '10.0.0.1'), { kind: 'customer', customerId: 'cus_pat' })
    clock.advance(1_000)
    const { limit, windowMs } = LIMITS.failedSignInsPerEmail
    for (let i = 0; i < limit; i++) limiter.hit('signin-fail:pat@example.com', limit, windowMs)
    assert.equal(await codeOf(auth.authenticate(basic('pat@example.com', PASSWORD), '10.0.0.1')), 'rate_limited')
  })

  it('should never answer at once when the counters are not in this process (Redis, issue 10)', async () => {
    hash ??= await hashPassword(PASSWORD)
    const clock = new ManualClock()
    const inMemory = new RateLimiter(clock)
    const shared = {
      hit: (key: string, limit: number, windowMs: number) => Promise.resolve(inMemory.hit(key, limit, windowMs)),
      exhausted: (key: string, limit: number, windowMs: number) => Promise.resolve(inMemory.exhausted(key, limit, windowMs)),
      refund: (key: string) => Promise.resolve(inMemory.refund(key))
    }
    const credentials = store()
    const auth = new Authenticator(credentials, new VerifiedCredentialCache(clock), shared)
    credentials.logins.set('pat@example.com', { id: 'cus_pat', password_hash: hash })
    assert.equal(await codeOf(auth.authenticate(basic('pat@example.com', PASSWORD), '10.0.0.1')), 'admitted')
    assert.equal(await codeOf(auth.authenticate(basic('pat@example.com', PASSWORD), '10.0.0.1')), 'admitted')
  })
})
