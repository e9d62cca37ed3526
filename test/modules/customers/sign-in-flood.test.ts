import assert from 'node:assert/strict'
import { it } from 'node:test'
import { describeEachDialect } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { customerWithPassword, uniqueEmail } from './support.js'

/**
 * Issue 25, D-14: the sign-in limits cannot be erased by a flood of other keys, nor dodged by
 * rotating addresses inside one IPv6 /64. The store holds only RATE_LIMIT_MAX_KEYS counters here,
 * so a flood of three times that many addresses is enough to push out anything that can be pushed.
 */
const MAX_KEYS = 50
const FLOOD = 3 * MAX_KEYS

const from = (address: string) => ({ 'x-forwarded-for': address })

describeEachDialect(
  'sign-in limits under a flood of addresses and IPv6 rotation (D-14, issue 25)',
  (t) => {
    const signIn = (body: unknown, address: string) => t.post('/v1/customer/signin', body, { headers: from(address) })

    it('should keep an e-mail locked out through a flood of malformed sign-ins from more addresses than the store holds', async () => {
      const victim = await customerWithPassword(t, 'the flooded victim password')
      for (let i = 0; i < 10; i++) problem(await signIn({ email: victim.email, password: `guess ${i}` }, '192.0.2.10'), 'invalid_login')
      problem(await signIn({ email: victim.email, password: victim.password }, '192.0.2.10'), 'rate_limited')
      // Each call is charged to its own address before its body is refused.
      for (let i = 0; i < FLOOD; i++) {
        const answer = await signIn({ email: 'not-an-address' }, `198.18.${i >> 8}.${i & 255}`)
        assert.equal(answer.statusCode, 400, answer.body)
      }
      const blocked = await signIn({ email: victim.email, password: victim.password }, '192.0.2.11')
      problem(blocked, 'rate_limited')
      const retryAfter = Number(blocked.headers['retry-after'])
      assert.ok(retryAfter > 14 * 60 && retryAfter <= 15 * 60, `Retry-After ${retryAfter}`)
      problem(await t.post(`/v1/customer/${victim.id}`, undefined, { auth: victim.auth, headers: from('192.0.2.12') }), 'rate_limited')
      t.clock.advance(15 * 60_000)
      assert.deepEqual(ok(await signIn({ email: victim.email, password: victim.password }, '192.0.2.11')), {
        status: 'success',
        customer_id: victim.id
      })
    })

    it('should keep an address at its limit through a flood of other addresses', async () => {
      for (let i = 0; i < 60; i++)
        assert.notEqual((await signIn({ email: 'not-an-address' }, '192.0.2.20')).statusCode, 429, `call ${i + 1}`)
      for (let i = 0; i < FLOOD; i++)
        assert.equal((await signIn({ email: 'not-an-address' }, `198.19.${i >> 8}.${i & 255}`)).statusCode, 400)
      problem(await signIn({ email: 'not-an-address' }, '192.0.2.20'), 'rate_limited')
      t.clock.advance(60_000)
      assert.equal((await signIn({ email: 'not-an-address' }, '192.0.2.20')).statusCode, 400)
    })

    it('should count sign-in and reset calls from every address of one IPv6 /64 together, and another /64 apart', async () => {
      const calls = [
        (address: string) => signIn({ email: 'not-an-address', password: 'x' }, address),
        (address: string) => t.post('/v1/customer/reset_password', { email: uniqueEmail('nobody') }, { headers: from(address) }),
        (address: string) =>
          t.post('/v1/customer/reset_password/confirm', { token: 'no such token', password: 'long enough' }, { headers: from(address) }),
        (address: string) =>
          t.post('/reset-password', { token: 'no such token', password: 'long enough' }, { auth: null, headers: from(address) })
      ]
      for (let i = 1; i <= 60; i++) assert.notEqual((await calls[i % 4]!(`2001:db8:25:1::${i.toString(16)}`)).statusCode, 429, `call ${i}`)
      for (const [n, call] of calls.entries()) {
        const blocked = await call(`2001:db8:25:1:${n + 1}::12d`)
        problem(blocked, 'rate_limited')
        assert.ok(Number(blocked.headers['retry-after']) >= 1 && Number(blocked.headers['retry-after']) <= 60)
      }
      // The next /64 is another household.
      for (const call of calls) assert.notEqual((await call('2001:db8:25:2::1')).statusCode, 429)
      t.clock.advance(60_000)
      assert.equal((await calls[0]!('2001:db8:25:1::1')).statusCode, 400)
    })

    it('should count an IPv4 client as the same client when it arrives as an IPv4-mapped IPv6 address', async () => {
      for (let i = 0; i < 60; i++) assert.equal((await signIn({ email: 'not-an-address' }, '192.0.2.30')).statusCode, 400)
      problem(await signIn({ email: 'not-an-address' }, '::ffff:192.0.2.30'), 'rate_limited')
      problem(await signIn({ email: 'not-an-address' }, '::ffff:c000:21e'), 'rate_limited')
      assert.equal((await signIn({ email: 'not-an-address' }, '::ffff:192.0.2.31')).statusCode, 400)
    })
  },
  { TRUST_PROXY: 'on', RATE_LIMIT_MAX_KEYS: String(MAX_KEYS) }
)
