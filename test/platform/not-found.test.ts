import assert from 'node:assert/strict'
import { it } from 'node:test'
import { describeEachDialect } from '../helpers/app.js'
import { ok, problem } from '../helpers/assertions.js'

describeEachDialect('unknown routes and methods (D-21)', (t) => {
  it('should answer 404 route_not_found for an unknown /v1 path', async () => {
    const body = problem(await t.post('/v1/nothing/here', { a: 1 }), 'route_not_found')
    assert.equal(body.detail, 'There is no operation POST /v1/nothing/here.')
  })

  it('should answer an over-long id or name in a path with the not-found code of its route, not route_not_found (D-21)', async () => {
    ok(await t.post('/v1/service/create', { service_name: 'Laundry', description: 'Received' }))
    for (const length of [101, 600, 1000, 5000]) {
      const long = 'x'.repeat(length)
      problem(await t.post(`/v1/customer/${long}`), 'customer_not_found')
      problem(await t.post(`/v1/transaction/${long}`), 'transaction_not_found')
      problem(await t.post(`/v1/transaction/${long}/history`), 'transaction_not_found')
      problem(await t.post(`/v1/service/${long}`), 'service_not_found')
      problem(await t.post(`/v1/service/${long}/1`), 'service_not_found')
      problem(await t.post(`/v1/service/Laundry/${'1'.repeat(length)}`), 'step_not_found')
      // Percent-encoded, as a client sends a long name with spaces or accents.
      problem(await t.post(`/v1/service/${encodeURIComponent('é '.repeat(length))}`), 'service_not_found')
    }
  })

  it('should answer 405 method_not_allowed with Allow: POST for GET, PUT, DELETE on /v1 paths', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH'] as const) {
      const response = await t.post('/v1/customer/search', undefined, { method })
      problem(response, 'method_not_allowed')
      assert.equal(response.headers.allow, 'POST')
    }
  })

  it('should serve /healthz without credentials', async () => {
    assert.deepEqual(ok(await t.post('/healthz', undefined, { method: 'GET', auth: null })), { status: 'ok' })
  })
})
