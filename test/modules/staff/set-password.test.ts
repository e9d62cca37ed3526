import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { it } from 'node:test'
import { decrypt, sha256Hex } from '../../../src/common/crypto.js'
import { ok, problem } from '../../helpers/assertions.js'
import { assertAbsent, describeEachDialectKeyed, type KeyedTestApp } from '../customers/support.js'
import { createStaff, invitations, postSignIn, signIn, withSession } from './support.js'

const HOUR = 3_600_000
let sequence = 0

describeEachDialectKeyed(
  'setting a staff password with an invitation link (D-15)',
  (t: KeyedTestApp) => {
    /** Invites a new user through the API; answers their id, e-mail and the token of their link. */
    async function invite(role: 'admin' | 'staff' = 'staff'): Promise<{ staffId: string; email: string; token: string }> {
      const email = `invitee${++sequence}.${Date.now()}@example.com`
      const view = ok(await t.post('/v1/staff/create', { email, name: `Invitee ${sequence}`, role }, { auth: t.auth.admin }))
      const payload = JSON.parse((await invitations(t)).at(-1)!.payload) as { sealed_link: string }
      const token = /\?token=([A-Za-z0-9_-]{43})$/.exec(decrypt(t.dataKey, payload.sealed_link))![1]!
      return { staffId: view.staff_id, email, token }
    }
    const setPassword = (body: unknown) => t.post('/console/set-password', body, { auth: null })

    it('should set the password with a live token, once: the user signs in with it, and the token is spent', async () => {
      const user = await invite()
      const response = await setPassword({ token: user.token, password: 'my-first-password' })
      assert.deepEqual(ok(response), { status: 'success' })
      assert.equal(response.headers['cache-control'], 'no-store')
      const session = await signIn(t, user.email, 'my-first-password')
      ok(await withSession(t, session, '/v1/service/stats'))
      const spent = problem(await setPassword({ token: user.token, password: 'a-second-password' }), 'invalid_token')
      assert.equal(spent.detail, 'This set-password link is not valid, was already used, or has expired.')
      await signIn(t, user.email, 'my-first-password')
      assertAbsent(t.logs, [user.token, 'my-first-password'])
    })

    it('should answer 400 invalid_token to a bad or expired token, changing nothing', async () => {
      const user = await invite()
      problem(await setPassword({ token: 'not-a-token', password: 'good-password' }), 'invalid_token')
      problem(await setPassword({ token: `${user.token}x`, password: 'good-password' }), 'invalid_token')
      t.clock.advance(72 * HOUR - 1000)
      const fresh = await invite()
      t.clock.advance(1001)
      problem(await setPassword({ token: user.token, password: 'good-password' }), 'invalid_token')
      problem(await postSignIn(t, { email: user.email, password: 'good-password' }), 'invalid_login')
      // One made later still works.
      assert.deepEqual(ok(await setPassword({ token: fresh.token, password: 'good-password' })), { status: 'success' })
    })

    it('should answer 400 naming each bad field, leaving the token live', async () => {
      const user = await invite()
      for (const [body, fields] of [
        [{ password: 'good-password' }, ['/token']],
        [{ token: user.token }, ['/password']],
        [{ token: '', password: 'good-password' }, ['/token']],
        [{ token: 5, password: 'good-password' }, ['/token']],
        [{ token: user.token, password: 'short' }, ['/password']],
        [{ token: user.token, password: 'p'.repeat(129) }, ['/password']],
        [{ token: user.token, password: 'e\u0308'.repeat(7) }, ['/password']]
      ] as const) {
        problem(await setPassword(body), 'validation_failed', [...fields])
      }
      assert.deepEqual(ok(await setPassword({ token: user.token, password: 'e\u0308'.repeat(8) })), { status: 'success' })
      await signIn(t, user.email, '\u00eb'.repeat(8))
    })

    it("should end the user's sessions and spend their other links when a link sets the password; disabling spends links too", async () => {
      const user = await createStaff(t)
      const session = await signIn(t, user.email, user.password)
      // Disabling a user spends their open link.
      const invited = await invite()
      ok(await t.post('/v1/staff/update', { staff_id: invited.staffId, status: 'disabled' }, { auth: t.auth.admin }))
      problem(await setPassword({ token: invited.token, password: 'good-password' }), 'invalid_token')
      // A link of a user with a session (as an admin could send again): setting the password ends it.
      const token = await t.database.unitOfWork.run(async ({ db }) => {
        const value = `extra-token-${Date.now()}`
        const now = t.clock.now()
        await db
          .insertInto('staff_password_tokens')
          .values({ token_hash: sha256Hex(value), staff_id: user.staff_id, created_at: now, expires_at: now + HOUR, used_at: null })
          .execute()
        return value
      })
      ok(await withSession(t, session, '/v1/service/stats'))
      assert.deepEqual(ok(await setPassword({ token, password: 'replaced-password' })), { status: 'success' })
      problem(await withSession(t, session, '/v1/service/stats'), 'unauthenticated')
      await signIn(t, user.email, 'replaced-password')
    })

    it('should serve the set-password page without credentials: self-contained, labelled HTML posting to set-password, never caching it', async () => {
      const secret = 'page-token-0f3a9c2e7d1b'
      const response = await t.app.inject({ method: 'GET', url: `/console/set-password?token=${secret}` })
      assert.equal(response.statusCode, 200)
      assert.equal(response.headers['content-type'], 'text/html; charset=utf-8')
      assert.equal(response.headers['cache-control'], 'no-store')
      assert.equal(response.headers['referrer-policy'], 'no-referrer')
      assert.equal(response.headers['x-frame-options'], 'DENY')
      const html = response.body
      assert.match(html, /^<!doctype html>\n<html lang="en">/)
      assert.match(html, /<title>Set your password<\/title>/)
      assert.match(html, /<h1>Set your password<\/h1>/)
      assert.match(html, /<form id="set-password" novalidate>/)
      assert.match(
        html,
        /<label for="password">[^<]+<\/label>\n<input id="password" name="password" type="password" autocomplete="new-password"/
      )
      assert.match(html, /<label for="repeat">[^<]+<\/label>\n<input id="repeat" name="repeat" type="password"/)
      assert.match(html, /<p id="message" role="status"><\/p>/)
      assert.match(html, /fetch\('set-password'/)
      assert.match(html, /link\.href = ".\/";/)
      assert.doesNotMatch(html, /\s(src|href)=/)
      assert.doesNotMatch(html, /https?:\/\//)
      assert.ok(!html.includes(secret))
      const csp = String(response.headers['content-security-policy'])
      const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!
      const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!
      assert.ok(csp.includes(`'sha256-${createHash('sha256').update(script).digest('base64')}'`))
      assert.ok(csp.includes(`'sha256-${createHash('sha256').update(style).digest('base64')}'`))
      assert.match(csp, /default-src 'none'/)
      assertAbsent(t.logs, [secret])
    })
  },
  { PUBLIC_URL: 'https://shop.example.com' }
)

describeEachDialectKeyed(
  'console settings (GET /console/config)',
  (t: KeyedTestApp) => {
    it('should answer shop name, time zone and whether setup is needed, without credentials', async () => {
      const read = async () => {
        const response = await t.app.inject({ method: 'GET', url: '/console/config' })
        assert.equal(response.headers['cache-control'], 'no-store')
        return ok(response)
      }
      assert.deepEqual(await read(), { shop_name: 'Wash & Fold', time_zone: 'America/New_York', setup_needed: true })
      // A staff user is no admin: setup is still needed.
      await createStaff(t, 'staff')
      assert.equal((await read()).setup_needed, true)
      const admin = await createStaff(t, 'admin')
      assert.deepEqual(await read(), { shop_name: 'Wash & Fold', time_zone: 'America/New_York', setup_needed: false })
      // While another admin is active, disabling one keeps setup done.
      await createStaff(t, 'admin')
      ok(await t.post('/v1/staff/update', { staff_id: admin.staff_id, status: 'disabled' }, { auth: t.auth.admin }))
      assert.equal((await read()).setup_needed, false)
    })

    it('should document the console endpoints with their problem codes, outside any callers scope', async () => {
      const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json()
      const codes = (operation: any) =>
        Object.values(operation.responses as Record<string, any>).flatMap(
          (r) => r.content?.['application/problem+json']?.schema.properties.code.enum ?? []
        )
      const expected: Array<[string, string, string, string[]]> = [
        ['/console/session', 'post', 'signInToConsole', ['invalid_login', 'rate_limited', 'validation_failed']],
        ['/console/session/end', 'post', 'signOutOfConsole', []],
        ['/console/set-password', 'post', 'setStaffPassword', ['invalid_token', 'rate_limited', 'validation_failed']],
        ['/console/set-password', 'get', 'setPasswordPage', []],
        ['/console/config', 'get', 'consoleConfig', []]
      ]
      for (const [path, method, id, listed] of expected) {
        const operation = document.paths[path]?.[method]
        assert.ok(operation, `${method} ${path}`)
        assert.equal(operation.operationId, id)
        assert.deepEqual(operation.security, [])
        assert.equal(operation['x-callers'], undefined)
        for (const code of listed) assert.ok(codes(operation).includes(code), `${path} lists ${code}`)
      }
      assert.deepEqual(Object.keys(document.components.schemas.ConsoleConfig.properties), ['shop_name', 'time_zone', 'setup_needed'])
      assert.deepEqual(document.components.securitySchemes.consoleSession, {
        type: 'apiKey',
        in: 'cookie',
        name: 'so_session',
        description: document.components.securitySchemes.consoleSession.description
      })
      assert.ok(codes(document.paths['/v1/service/stats'].post).includes('csrf_failed'))
    })
  },
  { SHOP_NAME: 'Wash & Fold', TIME_ZONE: 'America/New_York' }
)
