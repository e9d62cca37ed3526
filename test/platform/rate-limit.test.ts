import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ManualClock } from '../../src/common/clock.js'
import { Authenticator } from '../../src/platform/auth.js'
import { clientAddressKey } from '../../src/platform/client-address.js'
import { VerifiedCredentialCache } from '../../src/platform/credential-cache.js'
import { RateLimiter } from '../../src/platform/rate-limit.js'
import { addressCounterKey, counterKey, LIMITS } from '../../src/platform/rate-limit.rules.js'
import { basic } from '../helpers/app.js'

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

  it('should answer hasRoomNow as exhausted(...).allowed at every count, before, in and after the window, refunds too', () => {
    const clock = new ManualClock()
    const limiter = new RateLimiter(clock)
    const agree = (label: string) => {
      const expected = limiter.exhausted('k', 2, 60_000).allowed
      assert.equal(limiter.hasRoomNow('k', 2), expected, label)
      return expected
    }
    assert.equal(agree('no window yet'), true)
    limiter.hit('k', 2, 60_000)
    assert.equal(agree('one of two'), true)
    limiter.hit('k', 2, 60_000)
    assert.equal(agree('two of two'), false)
    limiter.hit('k', 2, 60_000)
    assert.equal(agree('over the limit'), false)
    limiter.refund('k')
    limiter.refund('k')
    assert.equal(agree('refunded back under'), true)
    limiter.hit('k', 2, 60_000)
    clock.advance(59_999)
    assert.equal(agree('last millisecond of the window'), false)
    clock.advance(1)
    assert.equal(agree('window over'), true)
  })

  it('should create no window when hasRoomNow or exhausted is asked of a key never hit', () => {
    const clock = new ManualClock()
    const limiter = new RateLimiter(clock, 2)
    for (let i = 0; i < 10; i++) {
      assert.equal(limiter.hasRoomNow(`k${i}`, 1), true)
      assert.deepEqual(limiter.exhausted(`e${i}`, 1, 60_000), { allowed: true, retryAfterSeconds: 60 })
    }
    // With room for two windows, two hits still fit: nothing was swept or kept for the keys asked about.
    limiter.hit('a', 1, 60_000)
    limiter.hit('b', 1, 60_000)
    assert.equal(limiter.hasRoomNow('a', 1), false)
    assert.equal(limiter.hasRoomNow('b', 1), false)
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
})

describe('RateLimiter under eviction pressure (D-14, issue 25)', () => {
  const keys = (limiter: RateLimiter) => [...(limiter as unknown as { windows: Map<string, unknown> }).windows.keys()]
  const EMAIL = { limit: 10, windowMs: 15 * 60_000 }
  const ADDRESS = { limit: 60, windowMs: 60_000 }

  it('should never forget a counter at its limit, however many other keys are counted in its window', () => {
    const clock = new ManualClock()
    const limiter = new RateLimiter(clock, 50)
    for (let i = 0; i < 10; i++) limiter.hit('signin-fail:victim@example.com', EMAIL.limit, EMAIL.windowMs)
    for (let i = 0; i < 60; i++) limiter.hit('signin-calls:203.0.113.1', ADDRESS.limit, ADDRESS.windowMs)
    const flood = (round: number) => {
      for (let i = 0; i < 1000; i++)
        assert.equal(limiter.hit(`signin-calls:10.${round}.${i >> 8}.${i & 255}`, ADDRESS.limit, ADDRESS.windowMs).allowed, true)
      assert.equal(limiter.size, 50, 'memory stays bounded')
    }
    flood(0)
    assert.deepEqual(limiter.hit('signin-fail:victim@example.com', EMAIL.limit, EMAIL.windowMs), { allowed: false, retryAfterSeconds: 900 })
    assert.deepEqual(limiter.hit('signin-calls:203.0.113.1', ADDRESS.limit, ADDRESS.windowMs), { allowed: false, retryAfterSeconds: 60 })
    clock.advance(59_999)
    flood(1)
    assert.equal(limiter.hasRoomNow('signin-calls:203.0.113.1', ADDRESS.limit), false, 'kept to the last millisecond of its window')
    clock.advance(1)
    flood(2)
    assert.equal(limiter.hasRoomNow('signin-calls:203.0.113.1', ADDRESS.limit), true, 'its window over, it may go')
    clock.advance(15 * 60_000 - 60_001)
    flood(3)
    assert.equal(limiter.hasRoomNow('signin-fail:victim@example.com', EMAIL.limit), false)
    clock.advance(1)
    assert.equal(limiter.hit('signin-fail:victim@example.com', EMAIL.limit, EMAIL.windowMs).allowed, true)
  })

  it('should keep a lock-out through a flood of more keys than the default bound (100,000)', () => {
    const limiter = new RateLimiter(new ManualClock())
    assert.equal(limiter.maxKeys, 100_000)
    for (let i = 0; i < 10; i++) limiter.hit('signin-fail:victim@example.com', EMAIL.limit, EMAIL.windowMs)
    for (let i = 0; i < 120_000; i++) limiter.hit(`signin-calls:${i}`, ADDRESS.limit, ADDRESS.windowMs)
    assert.equal(limiter.size, 100_000)
    assert.equal(limiter.hit('signin-fail:victim@example.com', EMAIL.limit, EMAIL.windowMs).allowed, false)
  })

  it('should forget counters under their limit first: the emptiest, and the oldest of those', () => {
    const clock = new ManualClock()
    const limiter = new RateLimiter(clock, 4)
    for (let i = 0; i < 9; i++) limiter.hit('nine', 10, 60_000)
    limiter.hit('one', 10, 60_000)
    for (let i = 0; i < 5; i++) limiter.hit('five', 10, 60_000)
    limiter.hit('full', 1, 60_000)
    limiter.hit('a', 10, 60_000) // 'one' goes: the emptiest
    assert.deepEqual(keys(limiter), ['nine', 'five', 'full', 'a'])
    limiter.hit('b', 10, 60_000) // as empty as 'a' and newer: 'a' goes
    assert.deepEqual(keys(limiter), ['nine', 'five', 'full', 'b'])
    limiter.hit('b', 10, 60_000)
    limiter.hit('b', 10, 60_000) // 'b' at 3 of 10 is fuller than a new key, still emptier than 'five'
    limiter.hit('c', 10, 60_000)
    assert.deepEqual(keys(limiter), ['nine', 'five', 'full', 'c'])
    limiter.hit('d', 10, 60_000)
    assert.deepEqual(keys(limiter), ['nine', 'five', 'full', 'd'])
    assert.equal(limiter.hasRoomNow('nine', 10), true)
    assert.equal(limiter.hit('nine', 10, 60_000).allowed, true, 'kept with its nine events: the tenth is allowed')
    assert.equal(limiter.hit('nine', 10, 60_000).allowed, false)
  })

  it('should refuse a new key while every counter kept is at its limit, until the first window ends', () => {
    const clock = new ManualClock()
    const limiter = new RateLimiter(clock, 3)
    limiter.hit('a', 1, 60_000)
    clock.advance(10_000)
    limiter.hit('b', 1, 60_000)
    limiter.hit('c', 2, 60_000)
    limiter.hit('c', 2, 60_000)
    assert.deepEqual(limiter.hit('new', 5, 60_000), { allowed: false, retryAfterSeconds: 50 }, 'until the window of a ends')
    assert.deepEqual(limiter.hit('new', 5, 15 * 60_000), { allowed: false, retryAfterSeconds: 50 })
    assert.equal(limiter.refusedForRoom, 2)
    assert.deepEqual(keys(limiter), ['a', 'b', 'c'])
    // Asking about a key counts nothing, so it needs no room.
    assert.equal(limiter.hasRoomNow('new', 5), true)
    assert.equal(limiter.exhausted('new', 5, 60_000).allowed, true)
    assert.equal(limiter.hit('a', 1, 60_000).allowed, false)
    clock.advance(50_000)
    assert.equal(limiter.hit('new', 5, 60_000).allowed, true, "a's window is over: its room is taken")
    assert.deepEqual(keys(limiter), ['b', 'c', 'new'])
    // A refund takes 'c' back under its limit, where it may be forgotten like any other.
    limiter.refund('c')
    for (let i = 0; i < 3; i++) limiter.hit('new', 5, 60_000)
    assert.equal(limiter.hit('other', 5, 60_000).allowed, true)
    assert.deepEqual(keys(limiter), ['b', 'new', 'other'])
  })

  it('should hold both rules whatever the mix of keys, limits, windows and time (a model of 20,000 steps)', () => {
    const clock = new ManualClock()
    const limiter = new RateLimiter(clock, 20)
    const windows = (limiter as unknown as { windows: Map<string, { resetAt: number }> }).windows
    const reached = new Map<string, { limit: number; resetAt: number }>()
    // mulberry32: a small seeded generator, so every run takes the same steps.
    let seed = 42
    const next = (n: number) => {
      seed = (seed + 0x6d2b79f5) | 0
      let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
      x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
      return Math.floor((((x ^ (x >>> 14)) >>> 0) / 4_294_967_296) * n)
    }
    for (let step = 0; step < 20_000; step++) {
      const i = next(200)
      const [limit, windowMs] = [[1, 3, 10][i % 3]!, i % 2 === 0 ? 1000 : 5000]
      if (next(10) === 0) clock.advance(next(400))
      const decision = limiter.hit(`k${i}`, limit, windowMs)
      const window = windows.get(`k${i}`)
      if (window !== undefined && !limiter.hasRoomNow(`k${i}`, limit)) reached.set(`k${i}`, { limit, resetAt: window.resetAt })
      if (window === undefined) assert.equal(decision.allowed, false, 'a key not kept is refused')
      assert.ok(limiter.size <= 20, `step ${step}: ${limiter.size} kept`)
      for (const [key, at] of reached) {
        if (at.resetAt <= clock.now()) reached.delete(key)
        else assert.equal(limiter.hasRoomNow(key, at.limit), false, `step ${step}: ${key} forgotten at its limit`)
      }
    }
    assert.ok(limiter.refusedForRoom > 0 && limiter.refusedForRoom < 20_000, String(limiter.refusedForRoom))
  })
})

describe('the rate limits and their keys (D-14, issue 25)', () => {
  it('should give each limit its own name, limit and window', () => {
    assert.deepEqual(LIMITS, {
      failedSignInsPerEmail: { name: 'signin-fail', limit: 10, windowMs: 15 * 60_000 },
      failedStaffSignInsPerEmail: { name: 'staff-signin-fail', limit: 10, windowMs: 15 * 60_000 },
      signInOrResetCallsPerAddress: { name: 'signin-calls', limit: 60, windowMs: 60_000 },
      failedCredentialsPerAddress: { name: 'basic-fail', limit: 60, windowMs: 60_000 },
      trackingCallsPerAddress: { name: 'tracking-calls', limit: 60, windowMs: 60_000 }
    })
    assert.equal(counterKey(LIMITS.failedSignInsPerEmail, 'pat@example.com'), 'signin-fail:pat@example.com')
    assert.equal(addressCounterKey(LIMITS.trackingCallsPerAddress, '2001:db8::1'), 'tracking-calls:2001:db8:0:0::/64')
  })

  it('should count an IPv4 address as it is, and an IPv4-mapped IPv6 address as its IPv4 address', () => {
    assert.equal(clientAddressKey('203.0.113.7'), '203.0.113.7')
    assert.equal(clientAddressKey('::ffff:203.0.113.7'), '203.0.113.7')
    assert.equal(clientAddressKey('::FFFF:cb00:7107'), '203.0.113.7')
    assert.equal(clientAddressKey('0:0:0:0:0:ffff:203.0.113.7'), '203.0.113.7')
  })

  it('should count an IPv6 address by its /64 prefix, however it is written', () => {
    const prefix = '2001:db8:0:1::/64'
    for (const ip of [
      '2001:db8:0:1::1',
      '2001:db8:0:1::12d',
      '2001:DB8:0:1:ffff:ffff:ffff:ffff',
      '2001:0db8:0000:0001:0000:0000:0000:0002',
      '2001:db8:0:1::1%eth0',
      '2001:db8:0:1:0:0:198.51.100.1'
    ]) {
      assert.equal(clientAddressKey(ip), prefix, ip)
    }
    assert.equal(clientAddressKey('2001:db8:0:2::1'), '2001:db8:0:2::/64')
    assert.equal(clientAddressKey('2001:db8::'), '2001:db8:0:0::/64')
    assert.equal(clientAddressKey('::1'), '0:0:0:0::/64')
    assert.equal(clientAddressKey('fe80::1:2:3:4'), 'fe80:0:0:0::/64')
  })

  it('should count failed customer Basic credentials from every address of one IPv6 /64 together (auth.ts)', async () => {
    const clock = new ManualClock()
    const limiter = new RateLimiter(clock)
    const noLogins = { findApiKey: async () => undefined, findCustomerLogin: async () => undefined }
    const auth = new Authenticator(noLogins, new VerifiedCredentialCache(clock), limiter)
    const { limit, windowMs } = LIMITS.failedCredentialsPerAddress
    // Sixty failures already counted from 2001:db8:26:1::1; no slow hash is needed to see the limit.
    for (let i = 0; i < limit; i++) limiter.hit(addressCounterKey(LIMITS.failedCredentialsPerAddress, '2001:db8:26:1::1'), limit, windowMs)
    const attempt = (ip: string) => Promise.resolve().then(() => auth.authenticate(basic('pat@example.com', 'a guess'), ip))
    await assert.rejects(attempt('2001:db8:26:1:ffff::2'), { code: 'rate_limited' })
    await assert.rejects(attempt('2001:db8:26:2::1'), { code: 'unauthenticated' }, 'another /64 is another client')
  })

  it('should count anything that is not an IP address as it is', () => {
    assert.equal(clientAddressKey('not:an:address'), 'not:an:address')
    assert.equal(clientAddressKey('2001:db8:::1'), '2001:db8:::1')
    assert.equal(clientAddressKey(''), '')
    assert.equal(clientAddressKey(undefined), '')
  })
})
