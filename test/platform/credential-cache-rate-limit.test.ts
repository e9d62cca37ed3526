import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ManualClock } from '../../src/common/clock.js'
import { VerifiedCredentialCache } from '../../src/platform/credential-cache.js'
import { LIMITS, RateLimiter } from '../../src/platform/rate-limit.js'
import { hashPassword } from '../../src/common/crypto.js'
import { Authenticator } from '../../src/platform/auth.js'
import { basic, describeEachDialect } from '../helpers/app.js'
import { ok, problem } from '../helpers/assertions.js'
import { customerWithPassword } from '../modules/customers/fixtures.js'

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

describe('RateLimiter (D-14)', () => {
  it('should allow `limit` events per window, then refuse with the seconds left', () => {
    const clock = new ManualClock()
    const limiter = new RateLimiter(clock)
    for (let i = 1; i <= 10; i++) assert.equal(limiter.hit('k', 10, 15 * 60_000).allowed, true, `hit ${i}`)
    clock.advance(60_000)
    assert.deepEqual(limiter.hit('k', 10, 15 * 60_000), { allowed: false, retryAfterSeconds: 14 * 60 })
    clock.advance(30_500)
    assert.deepEqual(limiter.hit('k', 10, 15 * 60_000), { allowed: false, retryAfterSeconds: 13 * 60 + 30 })
  })

  it('should reset when the window ends', () => {
    const clock = new ManualClock()
    const limiter = new RateLimiter(clock)
    for (let i = 0; i < 3; i++) limiter.hit('k', 2, 60_000)
    assert.equal(limiter.hit('k', 2, 60_000).allowed, false)
    clock.advance(59_999)
    assert.equal(limiter.hit('k', 2, 60_000).allowed, false)
    clock.advance(1)
    assert.equal(limiter.hit('k', 2, 60_000).allowed, true)
    assert.equal(limiter.hit('k', 2, 60_000).allowed, true)
    assert.equal(limiter.hit('k', 2, 60_000).allowed, false)
  })

  it('should never say to retry in less than 1 second', () => {
    const clock = new ManualClock()
    const limiter = new RateLimiter(clock)
    limiter.hit('k', 1, 1000)
    clock.advance(999)
    assert.deepEqual(limiter.hit('k', 1, 1000), { allowed: false, retryAfterSeconds: 1 })
  })

  it('should check without counting', () => {
    const clock = new ManualClock()
    const limiter = new RateLimiter(clock)
    for (let i = 0; i < 5; i++) assert.equal(limiter.exhausted('k', 2, 60_000).allowed, true)
    limiter.hit('k', 2, 60_000)
    assert.equal(limiter.exhausted('k', 2, 60_000).allowed, true)
    limiter.hit('k', 2, 60_000)
    const decision = limiter.exhausted('k', 2, 60_000)
    assert.deepEqual(decision, { allowed: false, retryAfterSeconds: 60 })
    clock.advance(60_000)
    assert.equal(limiter.exhausted('k', 2, 60_000).allowed, true)
  })

  it('should take back a refunded hit in the live window only, never below zero', () => {
    const clock = new ManualClock()
    const limiter = new RateLimiter(clock)
    limiter.hit('k', 2, 60_000)
    limiter.hit('k', 2, 60_000)
    assert.equal(limiter.exhausted('k', 2, 60_000).allowed, false)
    limiter.refund('k')
    assert.equal(limiter.exhausted('k', 2, 60_000).allowed, true)
    limiter.refund('k')
    limiter.refund('k')
    assert.equal(limiter.hit('k', 2, 60_000).allowed, true)
    assert.equal(limiter.hit('k', 2, 60_000).allowed, true)
    assert.equal(limiter.hit('k', 2, 60_000).allowed, false)
    // A refund after the window ended changes nothing in the next one.
    clock.advance(60_000)
    limiter.refund('k')
    limiter.refund('nothing')
    assert.equal(limiter.hit('k', 1, 60_000).allowed, true)
    assert.equal(limiter.hit('k', 1, 60_000).allowed, false)
  })

  it('should count keys apart', () => {
    const limiter = new RateLimiter(new ManualClock())
    limiter.hit('a', 1, 60_000)
    assert.equal(limiter.hit('a', 1, 60_000).allowed, false)
    assert.equal(limiter.hit('b', 1, 60_000).allowed, true)
  })

  it('should stay bounded: expired windows are swept, then the oldest live ones dropped', () => {
    const clock = new ManualClock()
    const limiter = new RateLimiter(clock, 3)
    limiter.hit('old', 1, 1000)
    limiter.hit('old', 1, 1000)
    clock.advance(1000)
    limiter.hit('x', 1, 60_000)
    limiter.hit('y', 1, 60_000)
    limiter.hit('z', 1, 60_000) // sweeps the expired 'old'
    const windows = (limiter as unknown as { windows: Map<string, unknown> }).windows
    assert.deepEqual([...windows.keys()], ['x', 'y', 'z'])
    limiter.hit('w', 1, 60_000) // all live: the oldest, 'x', goes
    assert.deepEqual([...windows.keys()], ['y', 'z', 'w'])
  })

  it('should hold the limits of D-14', () => {
    assert.deepEqual(LIMITS, {
      failedSignInsPerEmail: { limit: 10, windowMs: 15 * 60_000 },
      signInCallsPerAddress: { limit: 60, windowMs: 60_000 }
    })
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
    const burst = await Promise.allSettled([PASSWORD, 'guess a', 'guess b', 'guess c'].map((password) => auth.checkCustomerPassword('pat@example.com', password)))
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

describeEachDialect('a customer\'s requests at once before the password is cached (D-13, D-14)', (t) => {
  it('should answer every one of them, and count none as a failure', async () => {
    const customer = await customerWithPassword(t, 'many requests at once')
    const auth = basic(customer.email, customer.password)
    const reads = await Promise.all(Array.from({ length: 25 }, () => t.post(`/v1/customer/${customer.id}`, undefined, { auth })))
    assert.deepEqual(reads.map((r) => r.statusCode), Array(25).fill(200))
    t.clock.advance(61_000)
    const signIns = await Promise.all(
      Array.from({ length: 20 }, () => t.post('/v1/customer/signin', { email: customer.email, password: customer.password }))
    )
    assert.deepEqual(signIns.map((r) => r.statusCode), Array(20).fill(200))
    // All ten failures of D-14 are still to come.
    for (let i = 0; i < 9; i++) problem(await t.post('/v1/customer/signin', { email: customer.email, password: `slip ${i}` }), 'invalid_login')
    t.clock.advance(61_000)
    ok(await t.post(`/v1/customer/${customer.id}`, undefined, { auth }))
  })

  it('should answer them all after nine failures too: the tenth slot is held by the check of that same password', async () => {
    const customer = await customerWithPassword(t, 'nine slips then a rush')
    const auth = basic(customer.email, customer.password)
    for (let i = 0; i < 9; i++) problem(await t.post('/v1/customer/signin', { email: customer.email, password: `slip ${i}` }), 'invalid_login')
    const signIns = await Promise.all(
      Array.from({ length: 25 }, () => t.post('/v1/customer/signin', { email: customer.email, password: customer.password }))
    )
    assert.deepEqual(signIns.map((r) => r.statusCode), Array(25).fill(200))
    t.clock.advance(61_000)
    const reads = await Promise.all(Array.from({ length: 25 }, () => t.post(`/v1/customer/${customer.id}`, undefined, { auth })))
    assert.deepEqual(reads.map((r) => r.statusCode), Array(25).fill(200))
    // Nine failures still: the tenth locks the e-mail, the right password included.
    problem(await t.post('/v1/customer/signin', { email: customer.email, password: 'the tenth slip' }), 'invalid_login')
    problem(await t.post('/v1/customer/signin', { email: customer.email, password: customer.password }), 'rate_limited')
  })
})
