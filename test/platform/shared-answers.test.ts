import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import Fastify from 'fastify'
import type { App } from '../../src/platform/app-types.js'
import { serialiseSharedAnswersOnce } from '../../src/platform/shared-answers.js'

describe('answers shared between requests (config.sharedAnswer)', () => {
  async function appAnswering(answer: () => object, sharedAnswer: boolean) {
    const app = Fastify() as unknown as App
    serialiseSharedAnswersOnce(app)
    const schema = { response: { 200: { type: 'object', properties: { count: { type: 'integer' } } } } }
    app.post('/answer', { schema, config: { sharedAnswer } }, async () => answer())
    await app.ready()
    return app
  }

  it('should send the bytes of a shared answer object serialised once, by the route schema', async () => {
    const shared = { count: 1, dropped: 'not in the schema' }
    const app = await appAnswering(() => shared, true)
    const first = await app.inject({ method: 'POST', url: '/answer' })
    assert.equal(first.body, '{"count":1}')
    assert.equal(first.headers['content-type'], 'application/json; charset=utf-8')
    // The same object again: its kept bytes, not a new serialisation (shared answers are never mutated).
    shared.count = 2
    assert.equal((await app.inject({ method: 'POST', url: '/answer' })).body, '{"count":1}')
    await app.close()
  })

  it('should serialise every answer of a route without the option', async () => {
    const shared = { count: 1 }
    const app = await appAnswering(() => shared, false)
    assert.equal((await app.inject({ method: 'POST', url: '/answer' })).body, '{"count":1}')
    shared.count = 2
    assert.equal((await app.inject({ method: 'POST', url: '/answer' })).body, '{"count":2}')
    await app.close()
  })
})
