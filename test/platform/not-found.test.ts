import assert from 'node:assert/strict'
import { it } from 'node:test'
import { describeEachDialect } from '../helpers/app.js'
import { ok, problem } from '../helpers/assertions.js'

describeEachDialect('unknown routes and methods (D-21)', (t) => {
  it('should answer 404 route_not_found for an unknown /v1 path', async () => {
    const body = problem(await t.post('/v1/nothing/here', { a: 1 }), 'route_not_found')
    assert.equal(body.detail, 'There is no operation POST /v1/nothing/here.')
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
