import assert from 'node:assert/strict'
import { before, it } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { basic, describeEachDialect } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { createCustomer, customerWithPassword, uniqueEmail } from './support.js'

type Caller = 'none' | 'wrong' | 'app' | 'customer' | 'staff' | 'admin'
type Outcome = 'ok' | 'unauthenticated' | 'forbidden' | 'customer_not_found' | 'invalid_token' | 'invalid_login'

const CHALLENGE = 'Basic realm="service-ordering", charset="UTF-8"'

describeEachDialect('who may call the customer operations (D-10 to D-12)', (t) => {
  let me: Awaited<ReturnType<typeof customerWithPassword>>
  let other: any

  before(async () => {
    me = await customerWithPassword(t)
    other = await createCustomer(t)
  })

  function authOf(caller: Caller): string | null {
    switch (caller) {
      case 'none':
        return null
      case 'wrong':
        return basic('key_doesnotexist', 'not-a-secret')
      case 'customer':
        return me.auth
      default:
        return t.auth[caller]
    }
  }

  function expect(response: LightMyRequestResponse, outcome: Outcome, label: string): void {
    if (outcome === 'ok') {
      assert.equal(response.statusCode, 200, `${label}: ${response.body}`)
      ok(response)
      return
    }
    problem(response, outcome)
    // Every 401 carries the challenge (D-11, RFC 9110), `invalid_login` too; no other answer does.
    if (outcome === 'unauthenticated' || outcome === 'invalid_login') assert.equal(response.headers['www-authenticate'], CHALLENGE, label)
    else assert.equal(response.headers['www-authenticate'], undefined, label)
  }

  // Per D-12: [route, request, outcome per caller].
  const table: Array<[string, () => [string, unknown], Record<Caller, Outcome>]> = [
    [
      'sign in',
      () => ['/v1/customer/signin', { email: me.email, password: me.password }],
      { none: 'unauthenticated', wrong: 'unauthenticated', app: 'ok', customer: 'ok', staff: 'ok', admin: 'ok' }
    ],
    [
      'request password reset',
      () => ['/v1/customer/reset_password', { email: other.email }],
      { none: 'unauthenticated', wrong: 'unauthenticated', app: 'ok', customer: 'ok', staff: 'ok', admin: 'ok' }
    ],
    [
      'confirm password reset',
      () => ['/v1/customer/reset_password/confirm', { token: 'not a live token', password: 'long enough' }],
      {
        none: 'unauthenticated',
        wrong: 'unauthenticated',
        app: 'invalid_token',
        customer: 'invalid_token',
        staff: 'invalid_token',
        admin: 'invalid_token'
      }
    ],
    [
      'create customer',
      () => ['/v1/customer/create', { email: uniqueEmail('role'), zip: '90210' }],
      { none: 'unauthenticated', wrong: 'unauthenticated', app: 'ok', customer: 'ok', staff: 'ok', admin: 'ok' }
    ],
    [
      'get own customer',
      () => [`/v1/customer/${me.id}`, undefined],
      { none: 'unauthenticated', wrong: 'unauthenticated', app: 'forbidden', customer: 'ok', staff: 'ok', admin: 'ok' }
    ],
    [
      'get another customer',
      () => [`/v1/customer/${other.customer_id}`, undefined],
      { none: 'unauthenticated', wrong: 'unauthenticated', app: 'forbidden', customer: 'customer_not_found', staff: 'ok', admin: 'ok' }
    ],
    [
      'update own customer',
      () => ['/v1/customer/update', { customer: { customer_id: me.id, preference: 'role test' } }],
      { none: 'unauthenticated', wrong: 'unauthenticated', app: 'forbidden', customer: 'ok', staff: 'ok', admin: 'ok' }
    ],
    [
      'update another customer',
      () => ['/v1/customer/update', { customer: { customer_id: other.customer_id, preference: 'role test' } }],
      { none: 'unauthenticated', wrong: 'unauthenticated', app: 'forbidden', customer: 'customer_not_found', staff: 'ok', admin: 'ok' }
    ],
    [
      'search customers',
      () => ['/v1/customer/search', { query: 'a' }],
      { none: 'unauthenticated', wrong: 'unauthenticated', app: 'forbidden', customer: 'forbidden', staff: 'ok', admin: 'ok' }
    ]
  ]

  for (const [operation, request, outcomes] of table) {
    it(`should admit exactly the callers of D-12 to ${operation}`, async () => {
      for (const caller of Object.keys(outcomes) as Caller[]) {
        const [path, body] = request()
        expect(await t.post(path, body, { auth: authOf(caller) }), outcomes[caller], `${operation} as ${caller}`)
      }
    })
  }

  it('should refuse access before reading the body: a bad body from a refused caller is still 401 or 403', async () => {
    problem(await t.post('/v1/customer/search', { query: 42 }, { auth: t.auth.app }), 'forbidden')
    problem(await t.post('/v1/customer/update', { nope: true }, { auth: null }), 'unauthenticated')
  })

  it("should answer 401 for Basic credentials with a customer's wrong password", async () => {
    problem(await t.post(`/v1/customer/${me.id}`, undefined, { auth: basic(me.email, 'not my password') }), 'unauthenticated')
  })

  it('should serve the reset page with no credentials at all', async () => {
    const response = await t.post('/reset-password?token=abc', undefined, { method: 'GET', auth: null })
    assert.equal(response.statusCode, 200)
  })

  it('should list the operations, their callers and their problem codes in the OpenAPI document', async () => {
    const document = ok(await t.post('/openapi.json', undefined, { method: 'GET', auth: null }))
    const expected: Record<string, { id: string; callers: string[]; codes: string[] }> = {
      '/v1/customer/signin': {
        id: 'signIn',
        callers: ['app', 'customer', 'staff'],
        codes: ['invalid_login', 'rate_limited', 'unauthenticated']
      },
      '/v1/customer/reset_password': {
        id: 'requestPasswordReset',
        callers: ['app', 'customer', 'staff'],
        codes: ['rate_limited', 'validation_failed']
      },
      '/v1/customer/reset_password/confirm': {
        id: 'confirmPasswordReset',
        callers: ['app', 'customer', 'staff'],
        codes: ['invalid_token', 'unauthenticated', 'rate_limited']
      },
      '/v1/customer/create': {
        id: 'createCustomer',
        callers: ['app', 'customer', 'staff'],
        codes: ['email_taken', 'unknown_zip', 'idempotency_key_reused']
      },
      '/v1/customer/{customer_id}': { id: 'getCustomer', callers: ['customer', 'staff'], codes: ['customer_not_found', 'forbidden'] },
      '/v1/customer/update': {
        id: 'updateCustomer',
        callers: ['customer', 'staff'],
        codes: ['customer_not_found', 'email_taken', 'unknown_zip', 'partial_card', 'invalid_card', 'forbidden', 'idempotency_key_reused']
      },
      '/v1/customer/search': { id: 'searchCustomers', callers: ['staff'], codes: ['validation_failed', 'forbidden'] }
    }
    for (const [path, want] of Object.entries(expected)) {
      const operation = document.paths[path]?.post
      assert.ok(operation, path)
      assert.equal(operation.operationId, want.id)
      assert.deepEqual(operation.tags, ['customers'])
      assert.deepEqual(operation['x-callers'], want.callers)
      const codes = Object.values(operation.responses as Record<string, any>).flatMap(
        (r) => r.content?.['application/problem+json']?.schema.properties.code.enum ?? []
      )
      for (const code of want.codes) assert.ok(codes.includes(code), `${path} lists ${code}`)
      assert.ok(operation.responses['200'], path)
    }
    assert.ok(document.paths['/reset-password']?.get)
  })
})
