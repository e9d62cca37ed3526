import assert from 'node:assert/strict'
import { it } from 'node:test'
import { decrypt, sha256Hex } from '../../../src/common/crypto.js'
import { basic } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import {
  assertAbsent,
  createCustomer,
  customerWithPassword,
  describeEachDialectKeyed,
  type KeyedTestApp,
  uniqueEmail,
  visible
} from './support.js'

const MESSAGE = 'If an account exists for that address, an e-mail with a password reset link has been sent.'
const PUBLIC_URL = 'https://shop.example.com/api'
const HOUR = 60 * 60 * 1000

describeEachDialectKeyed(
  'password reset (D-36, D-37)',
  (t) => {
    const requestReset = (email: string) => t.post('/v1/customer/reset_password', { email })
    const confirm = (token: string, password: string, auth: string | null = t.auth.app) =>
      t.post('/v1/customer/reset_password/confirm', { token, password }, { auth })

    /** The reset e-mails queued for a customer, oldest first. */
    const outboxOf = (customerId: string) =>
      t.database.db.selectFrom('outbox').selectAll().where('customer_id', '=', customerId).orderBy('id').execute()
    const tokensOf = (customerId: string) =>
      t.database.db.selectFrom('password_reset_tokens').selectAll().where('customer_id', '=', customerId).orderBy('created_at').execute()

    /** Asks for a reset and returns the token of the link queued for it. */
    async function tokenFor(app: KeyedTestApp, email: string, customerId: string): Promise<string> {
      assert.deepEqual(ok(await requestReset(email)), { message: MESSAGE })
      const rows = await outboxOf(customerId)
      const payload = JSON.parse(rows.at(-1)!.payload) as { email: string; sealed_link: string }
      const link = new URL(decrypt(app.dataKey, payload.sealed_link))
      return link.searchParams.get('token')!
    }

    it('should always answer the same message, and queue nothing for an unknown address', async () => {
      const before = await t.database.db.selectFrom('outbox').select('id').execute()
      assert.deepEqual(ok(await requestReset(uniqueEmail('nobody'))), { message: MESSAGE })
      assert.deepEqual(await t.database.db.selectFrom('outbox').select('id').execute(), before)
      const known = await createCustomer(t)
      const answer = await requestReset(known.email)
      assert.deepEqual(ok(answer), { message: MESSAGE })
    })

    it('should queue one e-mail with the sealed link and keep only the hash of a one-hour token (D-36)', async () => {
      const customer = await customerWithPassword(t)
      const started = t.clock.now()
      assert.deepEqual(ok(await requestReset(` ${customer.email.toUpperCase()} `)), { message: MESSAGE })
      const rows = await outboxOf(customer.id)
      assert.equal(rows.length, 1)
      const row = rows[0]!
      assert.deepEqual(
        {
          channel: row.channel,
          template: row.template,
          order_id: row.order_id,
          customer_id: row.customer_id,
          status: row.status,
          attempts: row.attempts
        },
        { channel: 'email', template: 'password_reset', order_id: null, customer_id: customer.id, status: 'pending', attempts: 0 }
      )
      const payload = JSON.parse(row.payload) as Record<string, string>
      assert.deepEqual(Object.keys(payload).sort(), ['email', 'sealed_link'])
      assert.equal(payload.email, customer.email)
      const link = decrypt(t.dataKey, payload.sealed_link!)
      const match = /^https:\/\/shop\.example\.com\/api\/reset-password\?token=([A-Za-z0-9_-]{43})$/.exec(link)
      assert.ok(match, link)
      const token = match[1]!
      const tokens = await tokensOf(customer.id)
      assert.equal(tokens.length, 1)
      assert.equal(tokens[0]!.token_hash, sha256Hex(token))
      assert.equal(tokens[0]!.used_at, null)
      assert.equal(tokens[0]!.expires_at - tokens[0]!.created_at, HOUR)
      assert.ok(tokens[0]!.created_at >= started)
      // The token itself is stored nowhere and logged nowhere.
      const everything = JSON.stringify([
        await t.database.db.selectFrom('outbox').selectAll().execute(),
        await t.database.db.selectFrom('password_reset_tokens').selectAll().execute()
      ])
      assertAbsent([everything, ...t.logs], [token])
    })

    it('should set the new password with the token, once, and answer status success (D-37)', async () => {
      const customer = await customerWithPassword(t, 'old password here')
      const token = await tokenFor(t, customer.email, customer.id)
      assert.deepEqual(ok(await confirm(token, 'brand new password')), { status: 'success' })
      ok(await t.post('/v1/customer/signin', { email: customer.email, password: 'brand new password' }))
      problem(await t.post('/v1/customer/signin', { email: customer.email, password: 'old password here' }), 'invalid_login')
      // Single use.
      const again = problem(await confirm(token, 'another new password'), 'invalid_token')
      assert.equal(again.detail, 'This password reset link is not valid, was already used, or has expired.')
      ok(await t.post('/v1/customer/signin', { email: customer.email, password: 'brand new password' }))
      assert.ok((await tokensOf(customer.id))[0]!.used_at !== null)
    })

    it('should let a customer created without a password set one through a reset', async () => {
      const created = await createCustomer(t)
      const token = await tokenFor(t, created.email, created.customer_id)
      ok(await confirm(token, 'first password ever'))
      assert.deepEqual(ok(await t.post('/v1/customer/signin', { email: created.email, password: 'first password ever' })), {
        status: 'success',
        customer_id: created.customer_id
      })
    })

    it('should refuse a token after one hour, and take it just before', async () => {
      const customer = await customerWithPassword(t)
      const late = await tokenFor(t, customer.email, customer.id)
      t.clock.advance(HOUR)
      problem(await confirm(late, 'too late password'), 'invalid_token')
      const timely = await tokenFor(t, customer.email, customer.id)
      t.clock.advance(HOUR - 1000)
      ok(await confirm(timely, 'just in time password'))
    })

    it('should refuse unknown and malformed tokens', async () => {
      for (const token of ['x', 'A'.repeat(43), sha256Hex('x'), ' '.repeat(5)])
        problem(await confirm(token, 'good new password'), 'invalid_token')
    })

    it('should make every older link of the customer useless once one is used', async () => {
      const customer = await customerWithPassword(t)
      const first = await tokenFor(t, customer.email, customer.id)
      const second = await tokenFor(t, customer.email, customer.id)
      ok(await confirm(second, 'second link password'))
      problem(await confirm(first, 'first link password'), 'invalid_token')
    })

    it('should end a cached customer credential at once when the password is reset (D-13)', async () => {
      const customer = await customerWithPassword(t, 'cached password')
      ok(await t.post(`/v1/customer/${customer.id}`, undefined, { auth: customer.auth }))
      ok(await t.post(`/v1/customer/${customer.id}`, undefined, { auth: customer.auth }))
      const token = await tokenFor(t, customer.email, customer.id)
      ok(await confirm(token, 'replacement password'))
      problem(await t.post(`/v1/customer/${customer.id}`, undefined, { auth: customer.auth }), 'unauthenticated')
      ok(await t.post(`/v1/customer/${customer.id}`, undefined, { auth: basic(customer.email, 'replacement password') }))
    })

    it('should answer 400 for a new password too short or too long, and keep the token for a better try', async () => {
      const customer = await customerWithPassword(t)
      const token = await tokenFor(t, customer.email, customer.id)
      const short = problem(await confirm(token, 'short'), 'validation_failed', ['/password'])
      assert.deepEqual(short.errors, [{ field: '/password', message: 'must be at least 8 characters' }])
      problem(await confirm(token, 'x'.repeat(129)), 'validation_failed', ['/password'])
      ok(await confirm(token, 'x'.repeat(128)))
    })

    it('should answer 400 for missing or mistyped fields', async () => {
      problem(await t.post('/v1/customer/reset_password', {}), 'validation_failed', ['/email'])
      problem(await t.post('/v1/customer/reset_password', { email: 'nope' }), 'validation_failed', ['/email'])
      problem(await t.post('/v1/customer/reset_password', { email: 7 }), 'validation_failed', ['/email'])
      problem(await t.post('/v1/customer/reset_password/confirm', { password: 'long enough' }, { auth: t.auth.app }), 'validation_failed', [
        '/token'
      ])
      problem(await t.post('/v1/customer/reset_password/confirm', { token: 'x' }, { auth: t.auth.app }), 'validation_failed', ['/password'])
      problem(
        await t.post('/v1/customer/reset_password/confirm', { token: '', password: 'long enough' }, { auth: t.auth.app }),
        'validation_failed',
        ['/token']
      )
      problem(
        await t.post('/v1/customer/reset_password/confirm', { token: 'x'.repeat(201), password: 'long enough' }, { auth: t.auth.app }),
        'validation_failed',
        ['/token']
      )
      problem(await t.post('/v1/customer/reset_password/confirm', { token: 5, password: 5 }, { auth: t.auth.app }), 'validation_failed', [
        '/token',
        '/password'
      ])
    })

    it('should send at most five reset e-mails per customer per hour, answering the same message', async () => {
      const customer = await createCustomer(t)
      for (let i = 0; i < 7; i++) assert.deepEqual(ok(await requestReset(customer.email)), { message: MESSAGE })
      assert.equal((await outboxOf(customer.customer_id)).length, 5)
      t.clock.advance(HOUR)
      ok(await requestReset(customer.email))
      assert.equal((await outboxOf(customer.customer_id)).length, 6)
    })

    it('should serve the reset page without credentials: self-contained HTML calling the confirm operation, never caching or logging the token', async () => {
      const secret = 'page-token-4d8b1f0e9c2a7b36'
      const response = await t.post(`/reset-password?token=${secret}`, undefined, { method: 'GET', auth: null })
      assert.equal(response.statusCode, 200)
      assert.equal(response.headers['content-type'], 'text/html; charset=utf-8')
      assert.equal(response.headers['cache-control'], 'no-store')
      assert.equal(response.headers['referrer-policy'], 'no-referrer')
      assert.equal(response.headers['x-frame-options'], 'DENY')
      const csp = String(response.headers['content-security-policy'])
      assert.match(csp, /default-src 'none'/)
      assert.match(csp, /script-src 'sha256-[A-Za-z0-9+/]+={0,2}'/)
      assert.match(csp, /connect-src 'self'/)
      const html = response.body
      assert.match(html, /^<!doctype html>/)
      assert.match(html, /<form id="reset"/)
      assert.match(html, /type="password"/)
      assert.match(html, /fetch\('reset-password'/)
      // No external assets: no src or href attributes, no absolute URLs.
      assert.doesNotMatch(html, /\s(src|href)=/)
      assert.doesNotMatch(html, /https?:\/\//)
      assert.ok(!html.includes(secret))
      // The inline script and style are the ones the policy allows.
      const { createHash } = await import('node:crypto')
      const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!
      const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!
      assert.ok(csp.includes(`'sha256-${createHash('sha256').update(script).digest('base64')}'`))
      assert.ok(csp.includes(`'sha256-${createHash('sha256').update(style).digest('base64')}'`))
      assertAbsent(t.logs, [secret])
      // Without a token the page still loads (and says so itself).
      assert.equal((await t.post('/reset-password', undefined, { method: 'GET', auth: null })).statusCode, 200)
    })

    it('should require Basic credentials on the /v1 confirm operation like every /v1 call (D-10, D-11)', async () => {
      const customer = await customerWithPassword(t)
      const token = await tokenFor(t, customer.email, customer.id)
      const none = await confirm(token, 'page password', null)
      problem(none, 'unauthenticated')
      assert.equal(none.headers['www-authenticate'], 'Basic realm="service-ordering", charset="UTF-8"')
      problem(await confirm(token, 'page password', basic('key_nope', 'nope')), 'unauthenticated')
      // The token was not spent by the refused calls.
      assert.deepEqual(ok(await confirm(token, 'page password')), { status: 'success' })
    })

    it("should let the page's own endpoint set the password with the token alone, once (D-37)", async () => {
      const customer = await customerWithPassword(t)
      const token = await tokenFor(t, customer.email, customer.id)
      const submit = () => t.post('/reset-password', { token, password: 'page password' }, { auth: null })
      assert.deepEqual(ok(await submit()), { status: 'success' })
      problem(await submit(), 'invalid_token')
      problem(await t.post('/reset-password', { token: 5 }, { auth: null }), 'validation_failed', ['/password', '/token'])
      ok(await t.post('/v1/customer/signin', { email: customer.email, password: 'page password' }, { auth: t.auth.app }))
    })

    it('should never show a reset token or password in an answer or a log line', async () => {
      const customer = await customerWithPassword(t)
      const token = await tokenFor(t, customer.email, customer.id)
      const answers = [
        await confirm(token, 'short'),
        await confirm(token, 'secret new password 1'),
        await confirm(token, 'secret new password 2'),
        await t.post('/v1/customer/signin', { email: customer.email, password: 'secret new password 1' })
      ]
      assertAbsent(answers.map(visible), [token, 'secret new password'])
      assertAbsent(t.logs, [token, 'secret new password', customer.password])
    })
  },
  { PUBLIC_URL }
)
