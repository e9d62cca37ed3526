import assert from 'node:assert/strict'
import { before, it } from 'node:test'
import { decrypt, sha256Hex } from '../../../src/common/crypto.js'
import { ok, problem } from '../../helpers/assertions.js'
import { createCustomer } from '../../helpers/factories.js'
import { changedTables, snapshot, tableNames } from '../../helpers/state.js'
import { describeEachDialectKeyed, type KeyedTestApp } from '../customers/support.js'
import { createStaff, invitations, signIn, withSession } from './support.js'

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const HOUR = 3_600_000

let sequence = 0
const email = (tag = 'new') => `${tag}${++sequence}.${Date.now()}@example.com`

describeEachDialectKeyed(
  'staff users: create, list, update (D-15)',
  (t: KeyedTestApp) => {
    let tables: string[]
    const asAdmin = (path: string, body?: unknown, headers?: Record<string, string>) =>
      t.post(path, body, { auth: t.auth.admin, ...(headers === undefined ? {} : { headers }) })
    const stored = (id: string) => t.database.db.selectFrom('staff_users').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

    before(async () => {
      tables = await tableNames(t)
    })

    it('should create an active user with a password: the staff view, e-mail trimmed and lower-cased, no invitation', async () => {
      const before = await invitations(t)
      const address = email('Pat')
      const response = await asAdmin('/v1/staff/create', {
        email: `  ${address.toUpperCase()} `,
        name: '  Pat   Lee ',
        role: 'staff',
        password: 'pass-word-1'
      })
      const view = ok(response)
      assert.deepEqual(Object.keys(view), ['staff_id', 'email', 'name', 'role', 'status', 'created_at'])
      assert.match(view.staff_id, /^stf_[0-9a-z]{24}$/)
      assert.deepEqual(
        { ...view, staff_id: '', created_at: '' },
        { staff_id: '', email: address.toLowerCase(), name: 'Pat Lee', role: 'staff', status: 'active', created_at: '' }
      )
      assert.match(view.created_at, ISO)
      assert.ok(Math.abs(Date.parse(view.created_at) - t.clock.now()) < 60_000)
      const row = await stored(view.staff_id)
      assert.match(row.password_hash!, /^scrypt\$/)
      assert.deepEqual(await invitations(t), before)
      // Signing in with it works at once.
      await signIn(t, address, 'pass-word-1')
    })

    it('should invite a user created without a password: one sealed e-mail in the outbox with a 72-hour set-password link', async () => {
      const before = (await invitations(t)).length
      const address = email('invited')
      const view = ok(await asAdmin('/v1/staff/create', { email: address, name: 'Ivy Invited', role: 'admin' }))
      assert.equal(view.role, 'admin')
      assert.equal((await stored(view.staff_id)).password_hash, null)
      const rows = await invitations(t)
      assert.equal(rows.length, before + 1)
      const row = rows.at(-1)!
      assert.equal(row.channel, 'email')
      assert.equal(row.customer_id, null)
      const payload = JSON.parse(row.payload) as Record<string, string>
      assert.deepEqual(Object.keys(payload).sort(), ['email', 'name', 'sealed_link'])
      assert.equal(payload.email, address)
      assert.equal(payload.name, 'Ivy Invited')
      const link = decrypt(t.dataKey, payload.sealed_link!)
      const match = /^https:\/\/shop\.example\.com\/api\/console\/set-password\?token=([A-Za-z0-9_-]{43})$/.exec(link)
      assert.ok(match, link)
      assert.ok(!row.payload.includes(match[1]!), 'the token travels sealed only')
      const tokens = await t.database.db.selectFrom('staff_password_tokens').selectAll().where('staff_id', '=', view.staff_id).execute()
      assert.equal(tokens.length, 1)
      assert.equal(tokens[0]!.token_hash, sha256Hex(match[1]!))
      assert.equal(tokens[0]!.expires_at - tokens[0]!.created_at, 72 * HOUR)
      assert.equal(tokens[0]!.used_at, null)
      // Until the password is set, the user cannot sign in.
      problem(await t.post('/console/session', { email: address, password: 'anything at all' }, { auth: null }), 'invalid_login')
    })

    it("should answer 409 email_taken for an address another staff user has, in any case, changing nothing; a customer's address is free", async () => {
      const taken = await createStaff(t)
      const before = await snapshot(t, tables)
      const response = await asAdmin('/v1/staff/create', {
        email: ` ${taken.email.toUpperCase()}`,
        name: 'Copy',
        role: 'staff',
        password: 'pass-word-2'
      })
      const document = problem(response, 'email_taken')
      assert.equal(document.detail, 'Another staff user already uses this e-mail address.')
      assert.deepEqual(changedTables(before, await snapshot(t, tables)), [])
      const customer = await createCustomer(t)
      ok(await asAdmin('/v1/staff/create', { email: customer.email, name: 'Also a customer', role: 'staff', password: 'pass-word-3' }))
    })

    it('should answer 400 validation_failed naming each bad field of create, changing nothing', async () => {
      const good = { email: email('bad'), name: 'Good Name', role: 'staff', password: 'good-password' }
      const decomposed7 = 'e\u0308'.repeat(7)
      const cases: Array<[Record<string, unknown>, string[]]> = [
        [{ ...good, email: undefined }, ['/email']],
        [{ ...good, email: 5 }, ['/email']],
        [{ ...good, email: 'not-an-address' }, ['/email']],
        [{ ...good, email: `${'a'.repeat(64)}@${'b'.repeat(190)}.com` }, ['/email']],
        [{ ...good, email: 'a\u0000b@example.com' }, ['/email']],
        [{ ...good, name: undefined }, ['/name']],
        [{ ...good, name: 7 }, ['/name']],
        [{ ...good, name: '   ' }, ['/name']],
        [{ ...good, name: 'x'.repeat(101) }, ['/name']],
        [{ ...good, name: 'Tab\tName' }, ['/name']],
        [{ ...good, role: undefined }, ['/role']],
        [{ ...good, role: 'owner' }, ['/role']],
        [{ ...good, role: 'app' }, ['/role']],
        [{ ...good, password: 'short' }, ['/password']],
        [{ ...good, password: 'x'.repeat(129) }, ['/password']],
        [{ ...good, password: 12345678 }, ['/password']],
        [{ ...good, password: 'pass\u0007word' }, ['/password']],
        // Counted in NFKC: seven decomposed "ë" are 14 code points but seven characters.
        [{ ...good, password: decomposed7 }, ['/password']],
        [{ ...good, role: 'owner', password: 'short' }, ['/role', '/password']]
      ]
      const before = await snapshot(t, tables)
      for (const [body, fields] of cases) {
        problem(await asAdmin('/v1/staff/create', JSON.parse(JSON.stringify(body))), 'validation_failed', fields)
      }
      problem(
        await t.post('/v1/staff/create', undefined, { auth: t.auth.admin, raw: '{"email":', contentType: 'application/json' }),
        'invalid_json'
      )
      assert.deepEqual(changedTables(before, await snapshot(t, tables)), [])
      // A name of exactly 100 characters and a password of eight decomposed characters are fine.
      ok(await asAdmin('/v1/staff/create', { ...good, name: 'x'.repeat(100), password: 'e\u0308'.repeat(8) }))
    })

    it('should list every user, active and disabled, ordered by name, each as the staff view', async () => {
      const zed = await createStaff(t, 'staff', 'Zed Last')
      const abe = await createStaff(t, 'staff', 'Abe First')
      ok(await asAdmin('/v1/staff/update', { staff_id: zed.staff_id, status: 'disabled' }))
      // Any body is ignored (D-23).
      const body = ok(await t.post('/v1/staff/list', undefined, { auth: t.auth.admin, raw: 'not json', contentType: 'text/plain' }))
      assert.deepEqual(Object.keys(body), ['staff'])
      const names = body.staff.map((user: { name: string }) => user.name)
      assert.deepEqual(
        names,
        [...names].sort((a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0))
      )
      const byId = new Map(body.staff.map((user: { staff_id: string }) => [user.staff_id, user]))
      assert.deepEqual(byId.get(zed.staff_id), {
        staff_id: zed.staff_id,
        email: zed.email,
        name: 'Zed Last',
        role: 'staff',
        status: 'disabled',
        created_at: (byId.get(zed.staff_id) as { created_at: string }).created_at
      })
      assert.equal((byId.get(abe.staff_id) as { status: string }).status, 'active')
      for (const user of body.staff) assert.match(user.created_at, ISO)
    })

    it('should update only the fields sent, answering the view', async () => {
      const user = await createStaff(t, 'staff', 'Old Name')
      const renamed = ok(await asAdmin('/v1/staff/update', { staff_id: user.staff_id, name: '  New   Name ' }))
      assert.deepEqual(
        { ...renamed, created_at: '' },
        { staff_id: user.staff_id, email: user.email, name: 'New Name', role: 'staff', status: 'active', created_at: '' }
      )
      const promoted = ok(await asAdmin('/v1/staff/update', { staff_id: user.staff_id, role: 'admin' }))
      assert.equal(promoted.role, 'admin')
      assert.equal(promoted.name, 'New Name')
      const same = ok(await asAdmin('/v1/staff/update', { staff_id: user.staff_id }))
      assert.deepEqual(same, promoted)
      const reset = ok(await asAdmin('/v1/staff/update', { staff_id: user.staff_id, password: 'another-password' }))
      assert.deepEqual(reset, promoted)
      problem(await t.post('/console/session', { email: user.email, password: user.password }, { auth: null }), 'invalid_login')
      await signIn(t, user.email, 'another-password')
    })

    it('should answer 404 staff_not_found for an unknown id, and 400 naming each bad field of update, changing nothing', async () => {
      const user = await createStaff(t)
      const before = await snapshot(t, tables)
      problem(await asAdmin('/v1/staff/update', { staff_id: 'stf_0000000000000000000000000', name: 'X' }), 'staff_not_found')
      problem(await asAdmin('/v1/staff/update', { staff_id: 'stf_\u0001', name: 'X' }), 'staff_not_found')
      const cases: Array<[Record<string, unknown>, string[]]> = [
        [{ name: 'X' }, ['/staff_id']],
        [{ staff_id: 5 }, ['/staff_id']],
        [{ staff_id: '' }, ['/staff_id']],
        [{ staff_id: 'x'.repeat(65) }, ['/staff_id']],
        [{ staff_id: user.staff_id, name: '' }, ['/name']],
        [{ staff_id: user.staff_id, name: 'y'.repeat(101) }, ['/name']],
        [{ staff_id: user.staff_id, name: null }, ['/name']],
        [{ staff_id: user.staff_id, role: 'root' }, ['/role']],
        [{ staff_id: user.staff_id, status: 'gone' }, ['/status']],
        [{ staff_id: user.staff_id, status: true }, ['/status']],
        [{ staff_id: user.staff_id, password: 'short' }, ['/password']],
        [{ staff_id: user.staff_id, password: 'z'.repeat(129) }, ['/password']]
      ]
      for (const [body, fields] of cases) problem(await asAdmin('/v1/staff/update', body), 'validation_failed', fields)
      assert.deepEqual(changedTables(before, await snapshot(t, tables)), [])
    })

    it('should refuse to disable or demote the last active admin staff user (409 last_admin), whatever API keys exist', async () => {
      const admins = async () =>
        ok(await asAdmin('/v1/staff/list')).staff.filter(
          (u: { role: string; status: string }) => u.role === 'admin' && u.status === 'active'
        )
      const last = await createStaff(t, 'admin')
      // Every other active admin is made staff; each is allowed while another admin remains.
      for (const user of await admins())
        if (user.staff_id !== last.staff_id) ok(await asAdmin('/v1/staff/update', { staff_id: user.staff_id, role: 'staff' }))
      assert.deepEqual(
        (await admins()).map((u: { staff_id: string }) => u.staff_id),
        [last.staff_id]
      )
      const before = await snapshot(t, tables)
      for (const change of [
        { status: 'disabled' },
        { role: 'staff' },
        { role: 'staff', status: 'disabled' },
        { name: 'Renamed', status: 'disabled' }
      ]) {
        const document = problem(await asAdmin('/v1/staff/update', { staff_id: last.staff_id, ...change }), 'last_admin')
        assert.match(document.detail, /last active admin/)
      }
      assert.deepEqual(changedTables(before, await snapshot(t, tables)), [])
      // Other changes of the last admin are fine.
      assert.equal(
        ok(await asAdmin('/v1/staff/update', { staff_id: last.staff_id, name: 'Still Admin', role: 'admin', status: 'active' })).name,
        'Still Admin'
      )
      // A disabled admin does not count.
      const dormant = await createStaff(t, 'admin')
      ok(await asAdmin('/v1/staff/update', { staff_id: dormant.staff_id, status: 'disabled' }))
      problem(await asAdmin('/v1/staff/update', { staff_id: last.staff_id, status: 'disabled' }), 'last_admin')
      // With another active admin, the first may go.
      ok(await asAdmin('/v1/staff/update', { staff_id: dormant.staff_id, status: 'active' }))
      assert.equal(ok(await asAdmin('/v1/staff/update', { staff_id: last.staff_id, status: 'disabled' })).status, 'disabled')
      // Two admins disabling each other at once: one wins, one admin stays.
      const other = await createStaff(t, 'admin')
      const answers = await Promise.all([
        asAdmin('/v1/staff/update', { staff_id: dormant.staff_id, status: 'disabled' }),
        asAdmin('/v1/staff/update', { staff_id: other.staff_id, status: 'disabled' })
      ])
      assert.deepEqual(answers.map((r) => r.statusCode).sort(), [200, 409])
      assert.equal((await admins()).length, 1)
    })

    it('should replay a create or update sent again with its Idempotency-Key, and refuse the key with another body (D-52)', async () => {
      const body = { email: email('idem'), name: 'Once Only', role: 'staff' }
      const headers = { 'idempotency-key': `staff-create-${sequence}` }
      const before = (await invitations(t)).length
      const first = ok(await asAdmin('/v1/staff/create', body, headers))
      const again = ok(await asAdmin('/v1/staff/create', body, headers))
      assert.deepEqual(again, first)
      assert.equal((await invitations(t)).length, before + 1)
      problem(await asAdmin('/v1/staff/create', { ...body, name: 'Other' }, headers), 'idempotency_key_reused')
      const update = { staff_id: first.staff_id, name: 'Renamed Once' }
      const updateHeaders = { 'idempotency-key': `staff-update-${sequence}` }
      assert.deepEqual(
        ok(await asAdmin('/v1/staff/update', update, updateHeaders)),
        ok(await asAdmin('/v1/staff/update', update, updateHeaders))
      )
      problem(await asAdmin('/v1/staff/update', { ...update, role: 'admin' }, updateHeaders), 'idempotency_key_reused')
    })

    it('should admit admins only (D-18): admin key and admin session 200; staff key and session, app key, customer 403; none 401', async () => {
      const admin = await createStaff(t, 'admin')
      const staff = await createStaff(t, 'staff')
      const adminSession = await signIn(t, admin.email, admin.password)
      const staffSession = await signIn(t, staff.email, staff.password)
      const customer = await createCustomer(t, { password: 'customer-password' })
      for (const path of ['/v1/staff/list', '/v1/staff/update', '/v1/staff/create']) {
        for (const auth of [t.auth.staff, t.auth.app, customer.auth!]) problem(await t.post(path, {}, { auth }), 'forbidden')
        const none = await t.post(path, {}, { auth: null })
        problem(none, 'unauthenticated')
        assert.equal(none.headers['www-authenticate'], 'Basic realm="service-ordering", charset="UTF-8"')
        problem(await withSession(t, staffSession, path, {}), 'forbidden')
      }
      ok(await withSession(t, adminSession, '/v1/staff/list'))
      const made = ok(
        await withSession(t, adminSession, '/v1/staff/create', {
          email: email('by-session'),
          name: 'Made In Console',
          role: 'staff',
          password: 'pass-word-9'
        })
      )
      assert.equal(made.status, 'active')
      ok(await withSession(t, adminSession, '/v1/staff/update', { staff_id: made.staff_id, role: 'admin' }))
    })

    it('should document the three operations for admins only, with their problem codes', async () => {
      const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json()
      const expected: Record<string, [string, string[]]> = {
        '/v1/staff/create': [
          'createStaffUser',
          ['email_taken', 'validation_failed', 'forbidden', 'unauthenticated', 'csrf_failed', 'idempotency_key_reused']
        ],
        '/v1/staff/list': ['listStaffUsers', ['forbidden', 'unauthenticated', 'csrf_failed']],
        '/v1/staff/update': [
          'updateStaffUser',
          ['staff_not_found', 'last_admin', 'validation_failed', 'forbidden', 'csrf_failed', 'idempotency_key_reused']
        ]
      }
      for (const [path, [id, codes]] of Object.entries(expected)) {
        const operation = document.paths[path]?.post
        assert.ok(operation, path)
        assert.equal(operation.operationId, id)
        assert.deepEqual(operation.tags, ['staff'])
        assert.deepEqual(operation['x-callers'], ['admin'])
        assert.match(operation.description, /^Callers \(D-12, D-18\): admin keys and admin staff users only\./)
        assert.deepEqual(operation.security, [{ basicAuth: [] }, { consoleSession: [], csrfToken: [] }])
        const listed = Object.values(operation.responses as Record<string, any>).flatMap(
          (r) => r.content?.['application/problem+json']?.schema.properties.code.enum ?? []
        )
        for (const code of codes) assert.ok(listed.includes(code), `${path} lists ${code}`)
      }
    })
  },
  { PUBLIC_URL: 'https://shop.example.com/api' }
)
