import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import { syncBuiltinESMExports } from 'node:module'
import { before, it, mock } from 'node:test'
import { basic, describeEachDialect } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { createCustomer, customerWithPassword, uniqueEmail } from './support.js'

let address = 0
/** A client address of its own for each test, so the per-address limit of one test never touches another. */
function from(): { 'x-forwarded-for': string } {
  address += 1
  return { 'x-forwarded-for': `203.0.113.${address}` }
}

describeEachDialect(
  'sign in (D-35) and its rate limits (D-14)',
  (t) => {
    let customer: Awaited<ReturnType<typeof customerWithPassword>>
    const signIn = (body: unknown, headers: Record<string, string> = from()) => t.post('/v1/customer/signin', body, { headers })

    before(async () => {
      customer = await customerWithPassword(t)
    })

    it('should answer status success and the customer id for the right e-mail and password', async () => {
      assert.deepEqual(ok(await signIn({ email: customer.email, password: customer.password })), {
        status: 'success',
        customer_id: customer.id
      })
    })

    it('should take the same visible password typed in another Unicode form (NFKC)', async () => {
      const accented = await customerWithPassword(t, 'Crème brûlée 2026'.normalize('NFD'))
      const body = { email: accented.email, password: 'Crème brûlée 2026'.normalize('NFC') }
      assert.deepEqual(ok(await signIn(body)), { status: 'success', customer_id: accented.id })
      ok(await t.post(`/v1/customer/${accented.id}`, undefined, { auth: basic(accented.email, body.password), headers: from() }))
      problem(await signIn({ ...body, password: 'Creme brulee 2026' }), 'invalid_login')
    })

    it("should count a new password's 8 to 128 characters in NFKC, the form it is compared in", async () => {
      const sevenDecomposed = 'ë'.repeat(7).normalize('NFD')
      const create = (password: string) => t.post('/v1/customer/create', { email: uniqueEmail('nfkc'), zip: '10001', password })
      assert.deepEqual(problem(await create(sevenDecomposed), 'validation_failed', ['/password']).errors, [
        { field: '/password', message: 'must be at least 8 characters' }
      ])
      // Hangul jamo: 8 code points sent, 3 syllables compared.
      problem(await create('\u1100\u1161\u11A8\u1100\u1161\u11A8\u1100\u1161'), 'validation_failed', ['/password'])
      const hundred = 'ë'.repeat(100)
      const created = ok(await create(hundred.normalize('NFD'))) as { customer_id: string; email: string }
      assert.deepEqual(ok(await signIn({ email: created.email, password: hundred.normalize('NFC') })), {
        status: 'success',
        customer_id: created.customer_id
      })
    })

    it('should trim and lower-case the e-mail before comparing it', async () => {
      assert.deepEqual(ok(await signIn({ email: `  ${customer.email.toUpperCase()} `, password: customer.password })), {
        status: 'success',
        customer_id: customer.id
      })
    })

    it('should answer 401 invalid_login, the same for a wrong password and an unknown e-mail, with the Basic challenge (D-11, RFC 9110)', async () => {
      const wrong = await signIn({ email: customer.email, password: 'not the password' })
      const unknown = await signIn({ email: uniqueEmail('nobody'), password: customer.password })
      const bodyWrong = problem(wrong, 'invalid_login')
      assert.deepEqual(bodyWrong, {
        type: '/problems/invalid_login',
        title: 'Unauthorized',
        status: 401,
        detail: 'The e-mail address or password is not correct.',
        code: 'invalid_login'
      })
      assert.deepEqual(problem(unknown, 'invalid_login'), bodyWrong)
      // Every 401 carries a challenge (RFC 9110 §15.5.2), the one D-11 names for wrong credentials.
      assert.equal(wrong.headers['www-authenticate'], 'Basic realm="service-ordering", charset="UTF-8"')
      assert.equal(unknown.headers['www-authenticate'], 'Basic realm="service-ordering", charset="UTF-8"')
      // The password is case-sensitive.
      problem(await signIn({ email: customer.email, password: customer.password.toUpperCase() }), 'invalid_login')
    })

    it('should answer a customer without a password as for a wrong password', async () => {
      const nopass = await createCustomer(t)
      problem(await signIn({ email: nopass.email, password: 'whatever it is' }), 'invalid_login')
    })

    it('should spend the same slow hash on an unknown e-mail as on a wrong password, so both take as long (D-35)', async () => {
      // The scrypt calls each failure makes, with their cost parameters: what its time is made of.
      const hashesOf = async (body: unknown) => {
        const scrypt = mock.method(crypto, 'scrypt')
        syncBuiltinESMExports()
        try {
          problem(await signIn(body), 'invalid_login')
          return scrypt.mock.calls.map((call) => call.arguments[3])
        } finally {
          scrypt.mock.restore()
          syncBuiltinESMExports()
        }
      }
      const wrong = await hashesOf({ email: customer.email, password: 'wrong password 1' })
      const unknown = await hashesOf({ email: uniqueEmail('nobody'), password: 'wrong password 1' })
      assert.equal(wrong.length, 1, 'a wrong password costs one slow hash')
      assert.deepEqual(unknown, wrong, 'an unknown e-mail costs the same hash, never a shortcut')
    })

    it('should answer 400 for an e-mail that is not an address, and for missing or mistyped fields', async () => {
      const body = problem(await signIn({ email: 'not-an-address', password: 'x' }), 'validation_failed', ['/email'])
      assert.deepEqual(body.errors, [
        { field: '/email', message: 'must be an e-mail address like name@example.com, in ASCII, of at most 254 characters' }
      ])
      problem(await signIn({ password: 'x' }), 'validation_failed', ['/email'])
      problem(await signIn({ email: customer.email }), 'validation_failed', ['/password'])
      problem(await signIn({ email: customer.email, password: '' }), 'validation_failed', ['/password'])
      problem(await signIn({ email: customer.email, password: 12345678 }), 'validation_failed', ['/password'])
      problem(await signIn({ email: customer.email, password: 'p'.repeat(1025) }), 'validation_failed', ['/password'])
      problem(await signIn({ email: ['x'], password: 'x' }), 'validation_failed', ['/email'])
      problem(await signIn({}), 'validation_failed', ['/email', '/password'])
    })

    it('should answer 429 with Retry-After after 10 failed sign-ins for one e-mail in 15 minutes, even for the right password, until the window ends', async () => {
      const victim = await customerWithPassword(t, 'the victim password')
      for (let i = 0; i < 10; i++) problem(await signIn({ email: victim.email, password: `guess ${i}` }), 'invalid_login')
      const blocked = await signIn({ email: victim.email, password: victim.password })
      problem(blocked, 'rate_limited')
      const retryAfter = Number(blocked.headers['retry-after'])
      assert.ok(retryAfter > 14 * 60 && retryAfter <= 15 * 60, `Retry-After ${retryAfter}`)
      // The e-mail is counted normalised, and from any address.
      problem(await signIn({ email: ` ${victim.email.toUpperCase()}`, password: victim.password }), 'rate_limited')
      // Other e-mails are not affected.
      ok(await signIn({ email: customer.email, password: customer.password }))
      t.clock.advance(15 * 60_000)
      assert.deepEqual(ok(await signIn({ email: victim.email, password: victim.password })), { status: 'success', customer_id: victim.id })
    })

    it('should check at most 10 passwords of one e-mail even when 40 guesses arrive at once (D-14)', async () => {
      const victim = await customerWithPassword(t, 'the burst victim password')
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_unused, i) => signIn({ email: victim.email, password: `burst guess ${i}` }))
      )
      const statuses = answers.map((answer) => answer.statusCode)
      assert.equal(statuses.filter((status) => status === 401).length, 10, statuses.join(' '))
      assert.equal(statuses.filter((status) => status === 429).length, 30, statuses.join(' '))
      for (const answer of answers) {
        if (answer.statusCode === 429) assert.ok(Number(answer.headers['retry-after']) > 0)
      }
      problem(await signIn({ email: victim.email, password: victim.password }), 'rate_limited')
    })

    it('should not count a right password among the 10 failures', async () => {
      const victim = await customerWithPassword(t, 'the patient customer password')
      for (let i = 0; i < 9; i++) problem(await signIn({ email: victim.email, password: `slip ${i}` }), 'invalid_login')
      // Each right sign-in reserves the tenth failure while its password is checked, then gives it back.
      for (let i = 0; i < 5; i++) {
        t.clock.advance(61_000) // past the 60 s credential cache, so every one is checked again
        assert.deepEqual(ok(await signIn({ email: victim.email, password: victim.password })), {
          status: 'success',
          customer_id: victim.id
        })
      }
      problem(await signIn({ email: victim.email, password: 'the tenth slip' }), 'invalid_login')
      problem(await signIn({ email: victim.email, password: victim.password }), 'rate_limited')
    })

    it('should count failed Basic credentials of a customer as failed sign-ins', async () => {
      const victim = await customerWithPassword(t, 'basic victim password')
      for (let i = 0; i < 10; i++) {
        problem(
          await t.post(`/v1/customer/${victim.id}`, undefined, { auth: basic(victim.email, `guess ${i}`), headers: from() }),
          'unauthenticated'
        )
      }
      problem(await signIn({ email: victim.email, password: victim.password }), 'rate_limited')
      t.clock.advance(15 * 60_000)
      ok(await signIn({ email: victim.email, password: victim.password }))
    })

    it('should answer 429 with Retry-After past 60 sign-in and reset calls per client address per minute, then let the next minute through', async () => {
      const client = from()
      const calls = [
        () => t.post('/v1/customer/signin', { email: 'not-an-address', password: 'x' }, { headers: client }),
        () => t.post('/v1/customer/reset_password', { email: uniqueEmail('nobody') }, { headers: client }),
        () => t.post('/v1/customer/reset_password/confirm', { token: 'no such token', password: 'long enough' }, { headers: client })
      ]
      // Sign-ins, reset requests and confirmations all count, whatever their answer.
      for (let i = 0; i < 60; i++) assert.notEqual((await calls[i % 3]!()).statusCode, 429, `call ${i + 1}`)
      for (const call of calls) {
        const blocked = await call()
        problem(blocked, 'rate_limited')
        const retryAfter = Number(blocked.headers['retry-after'])
        assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`)
      }
      // Even the right password from that address waits.
      problem(await signIn({ email: customer.email, password: customer.password }, client), 'rate_limited')
      // Another address is not affected.
      ok(await signIn({ email: customer.email, password: customer.password }))
      t.clock.advance(60_000)
      ok(await signIn({ email: customer.email, password: customer.password }, client))
    })

    it('should not count other customer operations against the address limit', async () => {
      const client = from()
      for (let i = 0; i < 61; i++) ok(await t.post('/v1/customer/search', { query: 'x' }, { headers: client }))
      ok(await signIn({ email: customer.email, password: customer.password }, client))
    })
  },
  { TRUST_PROXY: 'on' }
)
