import assert from 'node:assert/strict'
import fs from 'node:fs'
import { before, describe, it } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { ApiKeysService } from '../../src/modules/api-keys/api-keys.service.js'
import { basic, describeEachDialect, type TestApp } from '../helpers/app.js'
import { ok, problem } from '../helpers/assertions.js'
import { accessOfCell, DECISIONS_FILE, parseD12, parseD18, readD12 } from '../helpers/d12-table.js'
import {
  type Access,
  D12,
  D12_EXTENSIONS,
  D12_SOURCE,
  D12_WRITTEN,
  type Example,
  Fixtures,
  type Person,
  ROUTES,
  type RouteSpec
} from '../helpers/route-catalogue.js'
import { changedTables, snapshot, tableNames } from '../helpers/state.js'
import { createStaff, type Session, signIn } from '../modules/staff/support.js'

/** The callers of issue 8, part 2, and the staff users of D-15 signed in to the console (D-16). */
const CALLERS = [
  'no credentials',
  'wrong secret',
  'revoked key',
  'app',
  'customer on own data',
  "customer on another's data",
  'staff',
  'admin',
  'staff session',
  'admin session'
] as const
type Caller = (typeof CALLERS)[number]

/** What a caller is answered, derived from the tables of D-12 and D-18 in decisions.md (d12-table.ts), never from the code. */
type Expected =
  | { status: 200 }
  | { status: 401 | 403 | 404; code: 'unauthenticated' | 'forbidden' | 'customer_not_found' | 'transaction_not_found' }
  | { status: 200; empty: true }

function expected(route: RouteSpec, caller: Caller): Expected {
  const row = D12[route.who]
  const cell = (access: Access, own: boolean): Expected => {
    if (access === 'yes') return { status: 200 }
    if (access === 'no') return { status: 403, code: 'forbidden' }
    if (own) return { status: 200 }
    if (access === 'own-else-403') return { status: 403, code: 'forbidden' }
    // D-57: a customer filtering on another customer's id gets an empty list, not a 404.
    if (route.id === 'listTransactions') return { status: 200, empty: true }
    return { status: 404, code: route.notFound! }
  }
  switch (caller) {
    case 'no credentials':
    case 'wrong secret':
    case 'revoked key':
      return { status: 401, code: 'unauthenticated' }
    case 'app':
      return cell(row.app, true)
    case 'customer on own data':
      return cell(row.customer, true)
    case "customer on another's data":
      return cell(row.customer, false)
    case 'staff':
    case 'staff session':
      return cell(row.staff, true)
    case 'admin':
    case 'admin session':
      return cell(row.admin, true)
  }
}

process.stdout.write(
  D12_SOURCE === 'decisions.md'
    ? `# authorization: D-12 read from ${DECISIONS_FILE}\n`
    : `# authorization: ${DECISIONS_FILE} is not beside this clone; D-12 taken from the copy in route-catalogue.ts\n`
)

describe('the table the authorization suite runs on (D-12, D-18)', () => {
  it('should read each kind of cell D-12 writes, and refuse one it does not know', () => {
    assert.equal(accessOfCell('yes'), 'yes')
    assert.equal(accessOfCell(' no '), 'no')
    assert.equal(accessOfCell('own record only'), 'own')
    assert.equal(accessOfCell('own only'), 'own')
    assert.equal(accessOfCell('own, open'), 'own')
    assert.equal(accessOfCell('own, open; only `note`, `pickup_timestamp`, `delivery_timestamp` (others: 403)'), 'own')
    assert.equal(accessOfCell('own `customer_id` only (else 403)'), 'own-else-403')
    assert.throws(() => accessOfCell('sometimes'), /cannot read the cell/)
    const table = parseD12(
      '- D-12 Who:\n\n| operation | app | customer | staff |\n|---|---|---|---|\n| a, b | yes | no | yes |\n| c | no | own only | yes |\n\n- D-13 …'
    )
    // D-12: admin may call everything staff may.
    assert.deepEqual(table, {
      'a, b': { app: 'yes', customer: 'no', staff: 'yes', admin: 'yes' },
      c: { app: 'no', customer: 'own', staff: 'yes', admin: 'yes' }
    })
    const d18 = parseD18(
      '- D-18 Who:\n\n| operation | app | customer | staff | admin |\n|---|---|---|---|---|\n| s | no | no | no | yes |\n\n- D-20 …'
    )
    assert.deepEqual(d18, { s: { app: 'no', customer: 'no', staff: 'no', admin: 'yes' } })
    assert.throws(
      () => parseD18('- D-18 Who:\n\n| operation | app | customer | staff |\n|---|---|---|---|\n| s | no | no | no |\n'),
      /columns/
    )
  })

  it('should cover every row of D-12 and the staff row of D-18 in decisions.md with a route, and every route with a row', {
    skip: D12_SOURCE === 'copy' ? `${DECISIONS_FILE} is not beside this clone` : false
  }, () => {
    const rows = readD12()!
    // The copy the route catalogue was written with still says what decisions.md says.
    assert.deepEqual(rows, D12_WRITTEN)
    const used = new Set(ROUTES.map((route) => route.who as string))
    // D-18's other rows are covered as their operations are added to the route catalogue.
    const required = [...Object.keys(parseD12(fs.readFileSync(DECISIONS_FILE, 'utf8'))), 'staff create, staff list, staff update']
    for (const row of required) assert.ok(used.has(row), `no route is tested for the row "${row}"`)
    for (const row of used) assert.ok(row in rows || row in D12_EXTENSIONS, `route row "${row}" is not in D-12`)
  })
})

describeEachDialect('who may call what: every route × every caller, from the table of D-12 (issue 8)', (t: TestApp) => {
  let fx: Fixtures
  let tables: string[]
  const auth: Record<Caller, string | null> = {
    'no credentials': null,
    'wrong secret': '',
    'revoked key': '',
    app: '',
    'customer on own data': '',
    "customer on another's data": '',
    staff: '',
    admin: '',
    'staff session': null,
    'admin session': null
  }
  // The console sessions of a staff user and an admin staff user (D-16): cookie and CSRF token, no Authorization header.
  const sessions: Partial<Record<Caller, Session>> = {}

  before(async () => {
    fx = await new Fixtures(t).setUp()
    const keys = new ApiKeysService(t.database, t.clock)
    const revoked = await keys.create('admin', 'revoked for the matrix')
    assert.equal(await keys.revoke(revoked.id), true)
    const adminId = Buffer.from(t.auth.admin.slice('Basic '.length), 'base64').toString('utf8').split(':')[0]!
    Object.assign(auth, {
      'wrong secret': basic(adminId, 'w'.repeat(43)),
      'revoked key': basic(revoked.id, revoked.secret),
      app: t.auth.app,
      'customer on own data': fx.me.auth,
      "customer on another's data": fx.me.auth,
      staff: t.auth.staff,
      admin: t.auth.admin
    })
    for (const [caller, role] of [
      ['staff session', 'staff'],
      ['admin session', 'admin']
    ] as const) {
      const user = await createStaff(t, role)
      sessions[caller] = await signIn(t, user.email, user.password)
    }
    tables = await tableNames(t)
  })

  /** The request a caller makes: about the caller's own records, or (one case) another customer's. */
  function requestOf(route: RouteSpec, caller: Caller): Promise<Example> {
    const owner: Person = caller === "customer on another's data" ? fx.other : fx.me
    return route.example(fx, owner)
  }

  async function send(example: Example, caller: Caller): Promise<LightMyRequestResponse> {
    const session = sessions[caller]
    const headers = session === undefined ? undefined : { cookie: session.cookie, 'x-csrf-token': session.csrf }
    return t.post(example.path, example.body, { auth: auth[caller], ...(headers === undefined ? {} : { headers }) })
  }

  for (const route of ROUTES) {
    for (const caller of CALLERS) {
      const answer = expected(route, caller)
      const label = 'code' in answer ? `${answer.status} ${answer.code}` : answer.status
      it(`should answer ${label} to ${caller} on ${route.route} (${route.id})`, async (c) => {
        if (!t.app.hasRoute({ method: 'POST', url: route.route })) return c.skip('not served by this app')
        const example = await requestOf(route, caller)
        const before = await snapshot(t, tables)
        const response = await send(example, caller)
        if (answer.status === 200) {
          const body = ok(response)
          if ('empty' in answer) assert.deepEqual(body, { transactions: [], next_cursor: null })
          return
        }
        const document = problem(response, (answer as { code: 'unauthenticated' }).code)
        if (answer.status === 401) assert.equal(response.headers['www-authenticate'], 'Basic realm="service-ordering", charset="UTF-8"')
        else assert.equal(response.headers['www-authenticate'], undefined)
        assert.equal(document.status, answer.status)
        // A refused request changes nothing (a session's last request may be written down, D-16).
        assert.deepEqual(changedTables(before, await snapshot(t, tables), ['staff_sessions']), [])
      })
    }
  }

  it('should answer 403 to a customer changing the status or the service of their own open transaction, changing nothing', async () => {
    for (const change of [
      { status: 'closed' },
      { status: 'open' },
      { service_name: fx.otherService },
      { note: 'fine', status: 'closed' }
    ]) {
      const id = await fx.order(fx.me)
      const before = await snapshot(t, tables)
      problem(await t.post('/v1/transaction/update', { transaction_id: id, ...change }, { auth: fx.me.auth }), 'forbidden')
      assert.deepEqual(changedTables(before, await snapshot(t, tables)), [])
    }
  })

  it('should let a customer change note and times of their own open transaction, and answer 409 once it is closed', async () => {
    const id = await fx.order(fx.me)
    const updated = ok(
      await t.post(
        '/v1/transaction/update',
        { transaction_id: id, note: 'Back door', pickup_timestamp: 1_793_344_800 },
        { auth: fx.me.auth }
      )
    )
    assert.equal(updated.note, 'Back door')
    ok(await t.post('/v1/transaction/update', { transaction_id: id, status: 'closed' }))
    problem(await t.post('/v1/transaction/update', { transaction_id: id, note: 'Too late' }, { auth: fx.me.auth }), 'transaction_closed')
    problem(await t.post('/v1/receipt/add', { transaction_id: id, item_id: fx.itemId }, { auth: fx.me.auth }), 'transaction_closed')
    // Staff may still reopen it (D-53).
    ok(await t.post('/v1/transaction/update', { transaction_id: id, status: 'open' }))
  })

  it("should answer 404 to a customer for another customer's transaction everywhere, exactly as for one that does not exist", async () => {
    const theirs = await fx.order(fx.other)
    const missing = 'trx_0000000000000000000000000'
    for (const [path, body] of [
      ['/v1/transaction/%s', undefined],
      ['/v1/transaction/%s/history', undefined],
      ['/v1/transaction/update', { transaction_id: '%s', note: 'x' }],
      ['/v1/receipt/add', { transaction_id: '%s', item_id: fx.itemId }],
      ['/v1/receipt/remove', { transaction_id: '%s', item_id: fx.itemId }]
    ] as const) {
      const answers = []
      for (const id of [theirs, missing]) {
        const response = await t.post(
          path.replace('%s', id),
          body === undefined ? undefined : JSON.parse(JSON.stringify(body).replace('%s', id)),
          { auth: fx.me.auth }
        )
        problem(response, 'transaction_not_found')
        answers.push(response.body)
      }
      assert.equal(answers[0], answers[1], path)
    }
  })

  it('should answer 403 to a customer creating a transaction for another customer, or for an id that does not exist', async () => {
    for (const customerId of [fx.other.id, 'cus_0000000000000000000000000']) {
      problem(
        await t.post(
          '/v1/transaction/create',
          { customer_id: customerId, service_name: fx.service, pickup_timestamp: 1_793_344_500, delivery_timestamp: 1_793_430_900 },
          { auth: fx.me.auth }
        ),
        'forbidden'
      )
    }
  })

  it("should list only a customer's own transactions, whatever filter they send", async () => {
    const mine = await fx.order(fx.me)
    await fx.order(fx.other)
    const all = ok(await t.post('/v1/transaction/list', { limit: 100 }, { auth: fx.me.auth }))
    assert.ok(all.transactions.length > 0)
    assert.ok(all.transactions.every((view: { customer_id: string }) => view.customer_id === fx.me.id))
    assert.ok(all.transactions.some((view: { transaction_id: string }) => view.transaction_id === mine))
    const staff = ok(await t.post('/v1/transaction/list', { limit: 100 }))
    assert.ok(staff.transactions.some((view: { customer_id: string }) => view.customer_id === fx.other.id))
  })

  it('should refuse a move to a customer even on their own transaction, and to an app key', async () => {
    for (const authorization of [fx.me.auth, t.auth.app]) {
      const id = await fx.order(fx.me)
      problem(await t.post('/v1/transaction/move', { customer_id: fx.me.id, transaction_id: id }, { auth: authorization }), 'forbidden')
    }
  })
})
