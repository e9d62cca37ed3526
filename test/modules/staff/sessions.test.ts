import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { before, it } from 'node:test'
import { buildApp } from '../../../src/app.js'
import { sha256Hex } from '../../../src/common/crypto.js'
import { openDatabase } from '../../../src/db/database.js'
import { createLogger } from '../../../src/platform/logger.js'
import { basic, describeEachDialect, type TestApp } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { createCustomer } from '../../helpers/factories.js'
import { changedTables, snapshot, tableNames } from '../../helpers/state.js'
import { createStaff, postSignIn, signIn, withSession } from './support.js'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const CHALLENGE = 'Basic realm="service-ordering", charset="UTF-8"'
// The console's refusals challenge with a scheme browsers do not prompt for (D-16).
const SESSION_CHALLENGE = 'Session realm="service-ordering"'

/** The session row of a token, every column. */
function storedSession(t: TestApp, token: string) {
  return t.database.db.selectFrom('staff_sessions').selectAll().where('token_hash', '=', sha256Hex(token)).executeTakeFirst()
}

describeEachDialect('console sessions (D-16)', (t) => {
  let tables: string[]

  before(async () => {
    tables = await tableNames(t)
  })

  it('should sign in with e-mail and password: the user and a CSRF token, and an HttpOnly, SameSite=Strict cookie of 12 hours', async () => {
    const user = await createStaff(t, 'staff', 'Casey Counter')
    const response = await postSignIn(t, { email: `  ${user.email.toUpperCase()} `, password: user.password })
    const body = ok(response)
    assert.deepEqual(Object.keys(body), ['staff_id', 'name', 'role', 'csrf_token'])
    assert.deepEqual({ ...body, csrf_token: '' }, { staff_id: user.staff_id, name: 'Casey Counter', role: 'staff', csrf_token: '' })
    assert.match(body.csrf_token, /^[A-Za-z0-9_-]{43}$/)
    const cookie = String(response.headers['set-cookie'])
    const match = /^so_session=([A-Za-z0-9_-]{43}); HttpOnly; SameSite=Strict; Path=\/; Max-Age=43200$/.exec(cookie)
    assert.ok(match, cookie)
    assert.equal(response.headers['cache-control'], 'no-store')
    // Both tokens are stored only as hashes.
    const row = await storedSession(t, match[1]!)
    assert.ok(row)
    assert.deepEqual(
      { staff_id: row.staff_id, csrf_hash: row.csrf_hash, seen: row.last_seen_at === row.created_at },
      { staff_id: user.staff_id, csrf_hash: sha256Hex(body.csrf_token), seen: true }
    )
    const everything = JSON.stringify(await t.database.db.selectFrom('staff_sessions').selectAll().execute())
    assert.ok(!everything.includes(match[1]!) && !everything.includes(body.csrf_token))
    for (const line of t.logs) assert.ok(!line.includes(match[1]!) && !line.includes(body.csrf_token) && !line.includes(user.password))
  })

  it('should answer 401 invalid_login alike for a wrong password, an unknown e-mail, a disabled user and one without a password', async () => {
    const user = await createStaff(t)
    const disabled = await createStaff(t)
    ok(await t.post('/v1/staff/update', { staff_id: disabled.staff_id, status: 'disabled' }, { auth: t.auth.admin }))
    const invited = ok(
      await t.post(
        '/v1/staff/create',
        { email: `invited.${Date.now()}@example.com`, name: 'No Password', role: 'staff' },
        { auth: t.auth.admin }
      )
    )
    const customer = await createCustomer(t, { password: 'customer-password' })
    const before = await snapshot(t, tables)
    const bodies = new Set<string>()
    for (const attempt of [
      { email: user.email, password: 'wrong-password' },
      { email: `nobody.${Date.now()}@example.com`, password: user.password },
      { email: disabled.email, password: disabled.password },
      { email: invited.email, password: 'anything-at-all' },
      // A customer's credentials open no console session.
      { email: customer.email, password: 'customer-password' }
    ]) {
      const response = await postSignIn(t, attempt)
      const document = problem(response, 'invalid_login')
      assert.equal(response.headers['www-authenticate'], SESSION_CHALLENGE)
      assert.equal(response.headers['set-cookie'], undefined)
      bodies.add(JSON.stringify(document))
    }
    assert.equal(bodies.size, 1)
    assert.deepEqual(changedTables(before, await snapshot(t, tables)), [])
  })

  it('should answer 400 naming each bad field of the sign-in body', async () => {
    for (const [body, fields] of [
      [{ password: 'x' }, ['/email']],
      [{ email: 'a@example.com' }, ['/password']],
      [{ email: 'a@example.com', password: '' }, ['/password']],
      [{ email: 'not an address', password: 'x' }, ['/email']],
      [{ email: 5, password: 5 }, ['/email', '/password']]
    ] as const) {
      problem(await postSignIn(t, body), 'validation_failed', [...fields])
    }
  })

  it("should make a request with the cookie and its CSRF token that staff user's, by role, with their id on the log line", async () => {
    const staff = await createStaff(t, 'staff')
    const session = await signIn(t, staff.email, staff.password)
    ok(await withSession(t, session, '/v1/service/stats'))
    problem(await withSession(t, session, '/v1/staff/list'), 'forbidden')
    const lines = t.logs
      .map((line) => JSON.parse(line))
      .filter((line) => line.msg === 'request completed' && line.route === '/v1/service/stats')
    assert.equal(lines.at(-1).staff_id, staff.staff_id)
    // A role change counts from the very next request.
    ok(await t.post('/v1/staff/update', { staff_id: staff.staff_id, role: 'admin' }, { auth: t.auth.admin }))
    ok(await withSession(t, session, '/v1/staff/list'))
  })

  it('should answer 403 csrf_failed to a live session without its CSRF token or with another, changing nothing', async () => {
    const admin = await createStaff(t, 'admin')
    const session = await signIn(t, admin.email, admin.password)
    const other = await signIn(t, admin.email, admin.password)
    const before = await snapshot(t, tables)
    const write = { email: `csrf.${Date.now()}@example.com`, name: 'Never Made', role: 'staff', password: 'pass-word-0' }
    for (const csrf of [null, '', 'x'.repeat(43), other.csrf, `${session.csrf} `]) {
      const response = await withSession(t, session, '/v1/staff/create', write, { csrf })
      const document = problem(response, 'csrf_failed')
      assert.equal(document.status, 403)
      assert.equal(response.headers['www-authenticate'], undefined)
    }
    problem(await withSession(t, session, '/v1/service/stats', undefined, { csrf: null }), 'csrf_failed')
    assert.deepEqual(changedTables(before, await snapshot(t, tables)), [])
  })

  it('should judge a request with an Authorization header by that header alone', async () => {
    const admin = await createStaff(t, 'admin')
    const session = await signIn(t, admin.email, admin.password)
    // A wrong header is 401 though the session is live and its token sent.
    const wrong = await withSession(t, session, '/v1/staff/list', undefined, { auth: basic('key_nope', 'nope') })
    problem(wrong, 'unauthenticated')
    assert.equal(wrong.headers['www-authenticate'], CHALLENGE)
    problem(await withSession(t, session, '/v1/staff/list', undefined, { auth: 'Bearer something' }), 'unauthenticated')
    // An app key is an app key: 403, though the session is an admin's.
    problem(await withSession(t, session, '/v1/staff/list', undefined, { auth: t.auth.app }), 'forbidden')
    // A valid header needs no CSRF token.
    ok(await withSession(t, session, '/v1/staff/list', undefined, { auth: t.auth.admin, csrf: null }))
  })

  it('should answer 401 to an unknown cookie and to a session ended by sign-out; sign-out clears the cookie', async () => {
    const staff = await createStaff(t)
    const session = await signIn(t, staff.email, staff.password)
    for (const cookie of ['so_session=unknown-token', `so_session=${'A'.repeat(43)}`, `other=1; so_session=${session.token}x`]) {
      const response = await t.post('/v1/service/stats', undefined, { auth: null, headers: { cookie, 'x-csrf-token': session.csrf } })
      problem(response, 'unauthenticated')
      assert.equal(response.headers['www-authenticate'], SESSION_CHALLENGE)
    }
    // The cookie among others still works.
    ok(
      await t.post('/v1/service/stats', undefined, {
        auth: null,
        headers: { cookie: `theme=dark; ${session.cookie}; lang=en`, 'x-csrf-token': session.csrf }
      })
    )
    const ended = await t.post('/console/session/end', undefined, { auth: null, headers: { cookie: session.cookie } })
    assert.deepEqual(ok(ended), { status: 'success' })
    assert.equal(ended.headers['set-cookie'], 'so_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0')
    assert.equal(await storedSession(t, session.token), undefined)
    problem(await withSession(t, session, '/v1/service/stats'), 'unauthenticated')
    // The tab's next call comes without the cleared cookie but with its CSRF token: the session
    // has ended, said without a Basic challenge; with neither, the request is D-11's.
    const gone = await t.post('/v1/service/stats', undefined, { auth: null, headers: { 'x-csrf-token': session.csrf } })
    assert.equal(problem(gone, 'unauthenticated').detail, 'The console session has ended or is unknown; sign in again.')
    assert.equal(gone.headers['www-authenticate'], SESSION_CHALLENGE)
    const none = await t.post('/v1/service/stats', undefined, { auth: null })
    assert.equal(problem(none, 'unauthenticated').detail, 'Valid HTTP Basic credentials are required.')
    assert.equal(none.headers['www-authenticate'], CHALLENGE)
    // Ending again, or without any cookie, answers the same.
    assert.deepEqual(ok(await t.post('/console/session/end', undefined, { auth: null, headers: { cookie: session.cookie } })), {
      status: 'success'
    })
    // Without a cookie there is none to delete: no Set-Cookie, so another site's form post cannot
    // clear this browser's cookie.
    const bare = await t.post('/console/session/end', { any: 'body' }, { auth: null })
    assert.deepEqual(ok(bare), { status: 'success' })
    assert.equal(bare.headers['set-cookie'], undefined)
  })

  it('should end a session after 2 hours without a request, writing its last request at most once a minute', async () => {
    const staff = await createStaff(t)
    const session = await signIn(t, staff.email, staff.password)
    const signedInAt = (await storedSession(t, session.token))!.last_seen_at
    // Requests within the minute write nothing.
    const { queries } = await t.countQueries(async () => {
      for (let i = 0; i < 5; i++) ok(await withSession(t, session, '/v1/service/stats'))
    })
    assert.equal(queries.filter((q) => /update "staff_sessions"/i.test(q)).length, 0)
    assert.equal((await storedSession(t, session.token))!.last_seen_at, signedInAt)
    // Past the minute, the next request writes it once.
    t.clock.advance(MINUTE + 1)
    const touched = await t.countQueries(async () => {
      ok(await withSession(t, session, '/v1/service/stats'))
      ok(await withSession(t, session, '/v1/service/stats'))
    })
    assert.equal(touched.queries.filter((q) => /update "staff_sessions"/i.test(q)).length, 1)
    const seen = (await storedSession(t, session.token))!.last_seen_at
    assert.ok(seen > signedInAt)
    // Just under 2 hours idle: still live (and seen again).
    t.clock.advance(2 * HOUR - 1000)
    ok(await withSession(t, session, '/v1/service/stats'))
    // Two hours after the last request: ended.
    t.clock.advance(2 * HOUR)
    problem(await withSession(t, session, '/v1/service/stats'), 'unauthenticated')
  })

  it('should end a session 12 hours after sign-in, however busy it is', async () => {
    const staff = await createStaff(t)
    const session = await signIn(t, staff.email, staff.password)
    for (let hour = 1; hour < 12; hour++) {
      t.clock.advance(HOUR)
      ok(await withSession(t, session, '/v1/service/stats'))
    }
    t.clock.advance(HOUR - 2000)
    ok(await withSession(t, session, '/v1/service/stats'))
    t.clock.advance(2000)
    problem(await withSession(t, session, '/v1/service/stats'), 'unauthenticated')
  })

  it('should end every session of a user at once when they are disabled or their password is changed', async () => {
    const staff = await createStaff(t)
    const first = await signIn(t, staff.email, staff.password)
    const second = await signIn(t, staff.email, staff.password)
    const bystander = await createStaff(t)
    const theirs = await signIn(t, bystander.email, bystander.password)
    ok(await withSession(t, first, '/v1/service/stats'))
    ok(await t.post('/v1/staff/update', { staff_id: staff.staff_id, password: 'brand-new-password' }, { auth: t.auth.admin }))
    problem(await withSession(t, first, '/v1/service/stats'), 'unauthenticated')
    problem(await withSession(t, second, '/v1/service/stats'), 'unauthenticated')
    ok(await withSession(t, theirs, '/v1/service/stats'))
    const again = await signIn(t, staff.email, 'brand-new-password')
    ok(await withSession(t, again, '/v1/service/stats'))
    ok(await t.post('/v1/staff/update', { staff_id: staff.staff_id, status: 'disabled' }, { auth: t.auth.admin }))
    problem(await withSession(t, again, '/v1/service/stats'), 'unauthenticated')
    assert.equal(await storedSession(t, again.token), undefined)
    ok(await withSession(t, theirs, '/v1/service/stats'))
    // Enabled again, the old session stays ended.
    ok(await t.post('/v1/staff/update', { staff_id: staff.staff_id, status: 'active' }, { auth: t.auth.admin }))
    problem(await withSession(t, again, '/v1/service/stats'), 'unauthenticated')
  })

  it('should hold sessions across two app instances on one database', async () => {
    const logger = createLogger('silent')
    const database = openDatabase(t.config)
    const second = await buildApp({ config: t.config, database, dataKey: randomBytes(32), clock: t.clock, logger })
    await second.ready()
    try {
      const staff = await createStaff(t, 'admin')
      const session = await signIn(t, staff.email, staff.password)
      const on = (app: typeof second, path: string, cookie = session.cookie) =>
        app.inject({ method: 'POST', url: path, headers: { cookie, 'x-csrf-token': session.csrf } })
      assert.equal((await on(second, '/v1/staff/list')).statusCode, 200)
      // Ended on the second: refused on the first.
      assert.equal((await on(second, '/console/session/end')).statusCode, 200)
      problem(await withSession(t, session, '/v1/staff/list'), 'unauthenticated')
      // Disabled through the first: refused on the second at once.
      const other = await createStaff(t, 'staff')
      const theirs = await signIn(t, other.email, other.password)
      const onSecond = () =>
        second.inject({ method: 'POST', url: '/v1/service/stats', headers: { cookie: theirs.cookie, 'x-csrf-token': theirs.csrf } })
      assert.equal((await onSecond()).statusCode, 200)
      ok(await t.post('/v1/staff/update', { staff_id: other.staff_id, status: 'disabled' }, { auth: t.auth.admin }))
      problem(await onSecond(), 'unauthenticated')
    } finally {
      await second.close()
      await database.close()
    }
  })

  it('should limit failed sign-ins to 10 per e-mail in 15 minutes (then 429 even with the right password), apart from customers', async () => {
    const staff = await createStaff(t)
    for (let i = 0; i < 10; i++) problem(await postSignIn(t, { email: staff.email, password: `wrong ${i}` }), 'invalid_login')
    const limited = await postSignIn(t, { email: staff.email, password: staff.password })
    problem(limited, 'rate_limited')
    assert.match(String(limited.headers['retry-after']), /^\d+$/)
    assert.ok(Number(limited.headers['retry-after']) <= 15 * 60)
    // A customer of the same address is not locked out by the console's failures.
    const customer = await createCustomer(t, { email: staff.email, password: 'customer-password' })
    ok(await t.post('/v1/customer/signin', { email: customer.email, password: 'customer-password' }, { auth: t.auth.app }))
    t.clock.advance(15 * MINUTE + 1000)
    await signIn(t, staff.email, staff.password)
  })

  it('should limit sign-in calls to 60 per client address per minute, counted with customer sign-ins', async () => {
    const staff = await createStaff(t)
    const from = '203.0.113.7'
    for (let i = 0; i < 59; i++) assert.equal((await postSignIn(t, { email: 'x', password: 'y' }, from)).statusCode, 400)
    const customerCall = await t.app.inject({
      method: 'POST',
      url: '/v1/customer/signin',
      remoteAddress: from,
      headers: { 'content-type': 'application/json', authorization: t.auth.app },
      payload: JSON.stringify({ email: 'nobody@example.com', password: 'x' })
    })
    problem(customerCall, 'invalid_login')
    const limited = await postSignIn(t, { email: staff.email, password: staff.password }, from)
    problem(limited, 'rate_limited')
    assert.match(String(limited.headers['retry-after']), /^\d+$/)
    await signIn(t, staff.email, staff.password)
    t.clock.advance(MINUTE + 1000)
    assert.equal((await postSignIn(t, { email: staff.email, password: staff.password }, from)).statusCode, 200)
  })
})

describeEachDialect(
  'console sessions behind https (D-16)',
  (t) => {
    it('should mark the cookie Secure when PUBLIC_URL is https, on sign-in and sign-out', async () => {
      const staff = await createStaff(t)
      const response = await postSignIn(t, { email: staff.email, password: staff.password })
      assert.match(
        String(response.headers['set-cookie']),
        /^so_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=43200; Secure$/
      )
      const token = /^so_session=([^;]+);/.exec(String(response.headers['set-cookie']))![1]
      const ended = await t.post('/console/session/end', undefined, { auth: null, headers: { cookie: `so_session=${token}` } })
      assert.equal(ended.headers['set-cookie'], 'so_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0; Secure')
    })
  },
  { PUBLIC_URL: 'https://shop.example.com' }
)
