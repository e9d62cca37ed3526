import assert from 'node:assert/strict'
import { it } from 'node:test'
import { describeEachDialect } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { customerWithPassword } from '../customers/support.js'

/**
 * Issue 25, D-14: the tracking status read counts clients by IPv6 /64, and its counters live in a
 * store of their own, so a flood of status reads cannot push sign-in counters out. The stores hold
 * only RATE_LIMIT_MAX_KEYS counters here; the floods are three times that.
 */
const MAX_KEYS = 50
const FLOOD = 3 * MAX_KEYS
const UNKNOWN_TOKEN = 'A'.repeat(43)

describeEachDialect(
  'tracking status limits: IPv6 /64 and a store of their own (D-14, issue 25)',
  (t) => {
    const status = (address: string) =>
      t.post(`/track/${UNKNOWN_TOKEN}/status`, undefined, { auth: null, headers: { 'x-forwarded-for': address } })

    it('should count status reads from every address of one IPv6 /64 together, and another /64 apart', async () => {
      for (let i = 1; i <= 60; i++) problem(await status(`2001:db8:9:1::${i.toString(16)}`), 'transaction_not_found')
      for (const address of ['2001:db8:9:1::3d', '2001:db8:9:1::12d', '2001:db8:9:1:8000:0:0:1']) {
        const limited = await status(address)
        problem(limited, 'rate_limited')
        assert.ok(Number(limited.headers['retry-after']) >= 1 && Number(limited.headers['retry-after']) <= 60)
      }
      problem(await status('2001:db8:9:2::1'), 'transaction_not_found')
      t.clock.advance(60_000)
      problem(await status('2001:db8:9:1::1'), 'transaction_not_found')
    })

    it('should leave the sign-in counters alone however many addresses read the tracking status', async () => {
      const customer = await customerWithPassword(t, 'a patient customer password')
      const signIn = (password: string) =>
        t.post('/v1/customer/signin', { email: customer.email, password }, { headers: { 'x-forwarded-for': '192.0.2.40' } })
      for (let i = 0; i < 9; i++) problem(await signIn(`slip ${i}`), 'invalid_login')
      for (let i = 0; i < FLOOD; i++) problem(await status(`198.18.${i >> 8}.${i & 255}`), 'transaction_not_found')
      // All nine failures were kept: the tenth locks the e-mail, the right password included.
      problem(await signIn('the tenth slip'), 'invalid_login')
      problem(await signIn(customer.password), 'rate_limited')
      t.clock.advance(15 * 60_000)
      ok(await signIn(customer.password))
    })
  },
  { TRUST_PROXY: 'on', RATE_LIMIT_MAX_KEYS: String(MAX_KEYS) }
)
