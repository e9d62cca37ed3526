import assert from 'node:assert/strict'
import { it } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { basic, describeEachDialect } from '../helpers/app.js'
import { ok, problem } from '../helpers/assertions.js'
import { createCustomer } from '../helpers/factories.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/** The secret part of a Basic header. */
function secretOf(authorization: string): string {
  return Buffer.from(authorization.slice('Basic '.length), 'base64').toString('utf8').split(':')[1]!
}

describeEachDialect('request ids, logs and response headers (D-73)', (t) => {
  /** The parsed log lines of one request id. */
  function linesOf(requestId: string): Array<Record<string, unknown>> {
    return t.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.request_id === requestId)
  }

  it('should echo a sane X-Request-Id', async () => {
    for (const id of ['abc-123', 'trace_id.span:42', 'A'.repeat(128), '0']) {
      const response = await t.post('/v1/service/stats', undefined, { headers: { 'x-request-id': id } })
      ok(response)
      assert.equal(response.headers['x-request-id'], id)
    }
  })

  it('should replace an X-Request-Id that is not sane with a fresh one', async () => {
    for (const id of ['A'.repeat(129), 'x'.repeat(200), 'has spaces in it', 'semi;colon', 'quote"d', '', 'caf\u00e9']) {
      const response = await t.post('/v1/service/stats', undefined, { headers: { 'x-request-id': id } })
      ok(response)
      assert.match(String(response.headers['x-request-id']), UUID, `for ${JSON.stringify(id)}`)
    }
  })

  it('should generate a different id for each request that sends none', async () => {
    const ids = new Set<string>()
    for (let i = 0; i < 5; i++) {
      const id = String((await t.post('/v1/service/stats')).headers['x-request-id'])
      assert.match(id, UUID)
      ids.add(id)
    }
    assert.equal(ids.size, 5)
  })

  it('should put X-Request-Id, nosniff and no X-Powered-By on every response, errors included', async () => {
    const responses: Array<[string, LightMyRequestResponse]> = [
      ['200', await t.post('/v1/service/stats')],
      ['400 invalid_json', await t.post('/v1/service/create', undefined, { raw: '{', contentType: 'application/json' })],
      ['400 validation', await t.post('/v1/service/create', {})],
      ['401', await t.post('/v1/service/stats', undefined, { auth: null })],
      ['403', await t.post('/v1/service/stats', undefined, { auth: t.auth.app })],
      ['404', await t.post('/v1/nothing')],
      ['405', await t.post('/v1/service/stats', undefined, { method: 'GET' })],
      ['413', await t.post('/v1/service/create', { service_name: 'x', description: 'y'.repeat(70_000) })],
      ['415', await t.post('/v1/service/create', undefined, { raw: 'x', contentType: 'text/plain' })],
      ['healthz', await t.post('/healthz', undefined, { method: 'GET', auth: null })],
      ['readyz', await t.post('/readyz', undefined, { method: 'GET', auth: null })],
      ['metrics', await t.post('/metrics', undefined, { method: 'GET', auth: null })],
      ['openapi', await t.post('/openapi.json', undefined, { method: 'GET', auth: null })],
      ['404 outside /v1', await t.post('/favicon.ico', undefined, { method: 'GET', auth: null })]
    ]
    for (const [label, response] of responses) {
      assert.match(String(response.headers['x-request-id']), UUID, label)
      assert.equal(response.headers['x-content-type-options'], 'nosniff', label)
      assert.equal(response.headers['x-powered-by'], undefined, label)
    }
  })

  it('should mark every /v1 answer, errors included, as not cacheable', async () => {
    for (const response of [
      await t.post('/v1/service/stats'),
      await t.post('/v1/service/stats', undefined, { auth: null }),
      await t.post('/v1/nothing'),
      await t.post('/v1', undefined, { method: 'GET' }),
      await t.post('/v1?x=1', undefined, { method: 'OPTIONS' }),
      await t.post('/v1/service/create', undefined, { raw: '{', contentType: 'application/json' })
    ]) {
      assert.equal(response.headers['cache-control'], 'no-store')
    }
  })

  it('should write one JSON log line per request carrying the request id', async () => {
    const id = 'log-line-check-1'
    problem(await t.post('/v1/service/create', { service_name: 5 }, { headers: { 'x-request-id': id } }), 'validation_failed')
    const lines = linesOf(id)
    assert.equal(lines.length, 1)
    const line = lines[0]!
    assert.deepEqual(
      { method: line.method, route: line.route, status: line.status, msg: line.msg, service: line.service },
      { method: 'POST', route: '/v1/service/create', status: 400, msg: 'request completed', service: 'service-ordering' }
    )
    assert.equal(typeof line.ms, 'number')
    // Every line the app wrote is JSON, and every request line has an id.
    for (const raw of t.logs) {
      const parsed = JSON.parse(raw) as Record<string, unknown>
      if (parsed.msg === 'request completed') assert.equal(typeof parsed.request_id, 'string')
    }
  })

  it('should name the API key of a request by its id in the log line, and no caller for a customer or an unadmitted request (D-17)', async () => {
    const keyId = Buffer.from(t.auth.admin.slice('Basic '.length), 'base64').toString('utf8').split(':')[0]!
    const callers = (id: string) => linesOf(id).map((line) => [line.msg, line.status, line.key_id, line.staff_id])
    ok(await t.post('/v1/service/stats', undefined, { auth: t.auth.admin, headers: { 'x-request-id': 'log-key-1' } }))
    assert.deepEqual(callers('log-key-1'), [['request completed', 200, keyId, undefined]])
    // A key refused by its role (D-12), a request without credentials, and one outside /v1 name no caller.
    problem(await t.post('/v1/service/stats', undefined, { auth: t.auth.app, headers: { 'x-request-id': 'log-key-2' } }), 'forbidden')
    assert.deepEqual(callers('log-key-2'), [['request completed', 403, undefined, undefined]])
    problem(await t.post('/v1/service/stats', undefined, { auth: null, headers: { 'x-request-id': 'log-key-3' } }), 'unauthenticated')
    assert.deepEqual(callers('log-key-3'), [['request completed', 401, undefined, undefined]])
    await t.post('/healthz', undefined, { method: 'GET', auth: null, headers: { 'x-request-id': 'log-key-4' } })
    assert.deepEqual(callers('log-key-4'), [['request completed', 200, undefined, undefined]])
    const customer = await createCustomer(t, { password: 'customer password 1' })
    ok(await t.post(`/v1/customer/${customer.id}`, undefined, { auth: customer.auth!, headers: { 'x-request-id': 'log-key-5' } }))
    assert.deepEqual(callers('log-key-5'), [['request completed', 200, undefined, undefined]])
  })

  it('should never log Authorization headers, passwords or secrets', async () => {
    const customerPassword = 'Pa55word-never-logged'
    const keySecret = secretOf(t.auth.staff)
    const wrong = basic('key_unknown_id', 'Wr0ng-secret-never-logged-000000000')
    const customer = basic('someone@example.com', customerPassword)
    ok(await t.post('/v1/service/stats'))
    problem(await t.post('/v1/service/stats', undefined, { auth: wrong }), 'unauthenticated')
    problem(await t.post('/v1/service/stats', undefined, { auth: customer }), 'unauthenticated')
    problem(await t.post('/v1/service/create', { service_name: 5, description: customerPassword }), 'validation_failed')
    const all = t.logs.join('\n')
    for (const needle of [
      t.auth.staff,
      t.auth.admin,
      t.auth.app,
      keySecret,
      wrong,
      customer,
      customerPassword,
      'Wr0ng-secret',
      'authorization'
    ]) {
      assert.ok(!all.toLowerCase().includes(needle.toLowerCase()), `the logs contain ${needle.slice(0, 12)}…`)
    }
  })
})
