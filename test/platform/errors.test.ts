import assert from 'node:assert/strict'
import { before, it } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import type { ProblemCode } from '../../src/platform/problems.js'
import { basic, describeEachDialect } from '../helpers/app.js'
import { ok, problem } from '../helpers/assertions.js'

const CHALLENGE = 'Basic realm="service-ordering", charset="UTF-8"'

/** Asserts the exact problem document (D-20): status, content type and the whole body. */
function exactly(response: LightMyRequestResponse, code: ProblemCode, detail: string, errors?: Array<{ field: string; message: string }>) {
  const body = problem(
    response,
    code,
    errors?.map((e) => e.field)
  )
  const expected: Record<string, unknown> = {
    type: `/problems/${code}`,
    title: body.title,
    status: response.statusCode,
    detail,
    code
  }
  if (errors !== undefined) expected.errors = errors
  assert.deepEqual(body, expected)
}

const INVALID_JSON = 'The request body is not valid JSON.'
const UNSUPPORTED = 'The request body must be JSON, sent with Content-Type: application/json.'
const TOO_LARGE = 'The request body is larger than 64 KiB.'
const UNAUTHENTICATED = 'Valid HTTP Basic credentials are required.'

describeEachDialect('problem documents of the platform (D-20, D-21)', (t) => {
  before(async () => {
    ok(await t.post('/v1/service/create', { service_name: 'Laundry', description: 'Drop off' }))
  })

  // invalid_json

  it('should answer 400 invalid_json for a malformed JSON body', async () => {
    const response = await t.post('/v1/service/create', undefined, { raw: '{"service_name": "x",', contentType: 'application/json' })
    exactly(response, 'invalid_json', INVALID_JSON)
    assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8')
  })

  it('should answer 400 invalid_json for an empty body sent as JSON', async () => {
    exactly(await t.post('/v1/service/create', undefined, { raw: '', contentType: 'application/json' }), 'invalid_json', INVALID_JSON)
  })

  it('should answer 400 invalid_json for malformed JSON with a charset parameter', async () => {
    const response = await t.post('/v1/service/create', undefined, {
      raw: "{'single': 'quotes'}",
      contentType: 'application/json; charset=utf-8'
    })
    exactly(response, 'invalid_json', INVALID_JSON)
  })

  it('should answer 400 invalid_json for a body that is only whitespace', async () => {
    exactly(await t.post('/v1/service/create', undefined, { raw: '  \n ', contentType: 'application/json' }), 'invalid_json', INVALID_JSON)
  })

  it('should answer 400 validation_failed, not invalid_json, for JSON that would poison prototypes, changing nothing', async () => {
    const message = 'must not have a "__proto__" key, or a "constructor" key holding "prototype", at any depth'
    for (const raw of [
      '{"service_name":"Poison","description":"x","__proto__":{"admin":true}}',
      '{"service_name":"Poison","description":"x","events":[{"constructor":{"prototype":{"admin":true}}}]}'
    ]) {
      const response = await t.post('/v1/service/create', undefined, { raw, contentType: 'application/json' })
      exactly(response, 'validation_failed', `The request is invalid: body ${message}.`, [{ field: '', message }])
    }
    problem(await t.post('/v1/service/Poison/1'), 'service_not_found')
    // A key merely named constructor is an ordinary (unknown) field.
    ok(
      await t.post('/v1/service/create', undefined, {
        raw: '{"service_name":"Plain","description":"x","constructor":1}',
        contentType: 'application/json'
      })
    )
  })

  it('should answer 400 validation_failed for a body nesting deeper than 32 levels, with or without an Idempotency-Key, changing nothing', async () => {
    const message = 'must not nest arrays and objects more than 32 levels deep'
    const deep = (levels: number, open: string, close: string, inner = '') =>
      `{"service_name":"Deep","description":"x","extra":${open.repeat(levels)}${inner}${close.repeat(levels)}}`
    // The body object is one level: 31 more arrays make 32, one more is too deep.
    for (const raw of [deep(32, '[', ']'), deep(3000, '[', ']'), deep(3000, '{"a":', '}', '1'), `${'['.repeat(40)}${']'.repeat(40)}`]) {
      for (const headers of [{}, { 'idempotency-key': `deep-${raw.length}` }] as Array<Record<string, string>>) {
        const response = await t.post('/v1/service/create', undefined, { raw, contentType: 'application/json', headers })
        exactly(response, 'validation_failed', `The request is invalid: body ${message}.`, [{ field: '', message }])
      }
    }
    problem(await t.post('/v1/service/Deep/1'), 'service_not_found')
    // Brackets inside strings are text, and 32 levels are fine.
    const fine = `{"service_name":"Deep","description":"${'[{'.repeat(100)}","extra":${'['.repeat(31)}${']'.repeat(31)}}`
    ok(
      await t.post('/v1/service/create', undefined, {
        raw: fine,
        contentType: 'application/json',
        headers: { 'idempotency-key': 'deep-fine' }
      })
    )
  })

  // validation_failed

  it('should answer 400 validation_failed naming a missing field', async () => {
    exactly(
      await t.post('/v1/service/create', { service_name: 'Ironing' }),
      'validation_failed',
      'The request is invalid: description is required.',
      [{ field: '/description', message: 'is required' }]
    )
  })

  it('should answer 400 validation_failed naming a field of the wrong type', async () => {
    exactly(
      await t.post('/v1/service/create', { service_name: 42, description: 'x' }),
      'validation_failed',
      'The request is invalid: service_name must be a string.',
      [{ field: '/service_name', message: 'must be a string' }]
    )
  })

  it('should answer 400 validation_failed naming a field that is too long', async () => {
    exactly(
      await t.post('/v1/service/create', { service_name: 'x'.repeat(101), description: 'x' }),
      'validation_failed',
      'The request is invalid: service_name must be at most 100 characters.',
      [{ field: '/service_name', message: 'must be at most 100 characters' }]
    )
  })

  it('should answer 400 validation_failed naming every failing field at once', async () => {
    exactly(
      await t.post('/v1/service/create', { service_name: 7, description: 'd'.repeat(501), button_title: false, events: 'email' }),
      'validation_failed',
      'The request is invalid in 4 places; see errors.',
      [
        { field: '/service_name', message: 'must be a string' },
        { field: '/description', message: 'must be at most 500 characters' },
        { field: '/button_title', message: 'must be a string' },
        { field: '/events', message: 'must be an array' }
      ]
    )
  })

  it('should answer 400 validation_failed naming both missing fields of an empty object', async () => {
    exactly(await t.post('/v1/service/create', {}), 'validation_failed', 'The request is invalid in 2 places; see errors.', [
      { field: '/service_name', message: 'is required' },
      { field: '/description', message: 'is required' }
    ])
  })

  it('should answer 400 validation_failed naming a nested field by its JSON pointer', async () => {
    exactly(
      await t.post('/v1/service/create', { service_name: 'Nested', description: 'x', events: ['email', { event: 5 }] }),
      'validation_failed',
      'The request is invalid: events/1/event must be a string.',
      [{ field: '/events/1/event', message: 'must be a string' }]
    )
    exactly(
      await t.post('/v1/service/create', { service_name: 'Nested', description: 'x', events: [{}] }),
      'validation_failed',
      'The request is invalid: events/0/event is required.',
      [{ field: '/events/0/event', message: 'is required' }]
    )
    exactly(
      await t.post('/v1/service/create', { service_name: 'Nested', description: 'x', events: [{ event: 'e'.repeat(21) }] }),
      'validation_failed',
      'The request is invalid: events/0/event must be at most 20 characters.',
      [{ field: '/events/0/event', message: 'must be at most 20 characters' }]
    )
  })

  it('should answer 400 validation_failed for a JSON body that is not an object', async () => {
    for (const body of [[1, 2], 'text', 12, null]) {
      exactly(await t.post('/v1/service/create', body), 'validation_failed', 'The request is invalid: body must be an object.', [
        { field: '', message: 'must be an object' }
      ])
    }
  })

  it('should answer 400 validation_failed for a body route called without any body', async () => {
    exactly(await t.post('/v1/service/create'), 'validation_failed', 'The request is invalid: body must be an object.', [
      { field: '', message: 'must be an object' }
    ])
  })

  it('should never echo the offending value in a validation error', async () => {
    const response = await t.post('/v1/service/create', { service_name: 'SECRET-VALUE-'.repeat(10), description: 'x' })
    problem(response, 'validation_failed', ['/service_name'])
    assert.ok(!response.body.includes('SECRET-VALUE'))
  })

  // unsupported_media_type

  for (const [label, contentType, raw] of [
    ['text/plain', 'text/plain', '{"service_name":"A","description":"b"}'],
    ['form-encoded', 'application/x-www-form-urlencoded', 'service_name=A&description=b'],
    ['XML', 'application/xml', '<service/>'],
    ['a JSON-like vendor type', 'application/vnd.api+json', '{"service_name":"A","description":"b"}'],
    ['a malformed Content-Type', 'json', '{"service_name":"A","description":"b"}']
  ] as const) {
    it(`should answer 415 unsupported_media_type for a ${label} body`, async () => {
      exactly(await t.post('/v1/service/create', undefined, { raw, contentType }), 'unsupported_media_type', UNSUPPORTED)
    })
  }

  it('should answer 415 unsupported_media_type for a body sent without a content type', async () => {
    exactly(
      await t.post('/v1/service/create', undefined, { raw: '{"service_name":"A","description":"b"}' }),
      'unsupported_media_type',
      UNSUPPORTED
    )
  })

  // payload_too_large

  it('should answer 413 payload_too_large for a JSON body over 64 KiB', async () => {
    const response = await t.post('/v1/service/create', { service_name: 'Big', description: 'x'.repeat(70 * 1024) })
    exactly(response, 'payload_too_large', TOO_LARGE)
  })

  it('should read a body of exactly 64 KiB and refuse one byte more', async () => {
    const shell = JSON.stringify({ service_name: 'Edge', description: '' })
    const exact = JSON.stringify({ service_name: 'Edge', description: 'x'.repeat(64 * 1024 - shell.length) })
    assert.equal(Buffer.byteLength(exact), 64 * 1024)
    // Read, then refused by the schema, not by size.
    problem(await t.post('/v1/service/create', undefined, { raw: exact, contentType: 'application/json' }), 'validation_failed', [
      '/description'
    ])
    const over = JSON.stringify({ service_name: 'Edge', description: 'x'.repeat(64 * 1024 - shell.length + 1) })
    exactly(await t.post('/v1/service/create', undefined, { raw: over, contentType: 'application/json' }), 'payload_too_large', TOO_LARGE)
  })

  // route_not_found

  it('should answer 404 route_not_found for unknown paths, /v1 or not', async () => {
    exactly(await t.post('/v1/nothing/here', { a: 1 }), 'route_not_found', 'There is no operation POST /v1/nothing/here.')
    exactly(await t.post('/v1', {}), 'route_not_found', 'There is no operation POST /v1.')
    exactly(await t.post('/v2/service/stats'), 'route_not_found', 'There is no operation POST /v2/service/stats.')
    exactly(
      await t.post('/nothing?token=abc', undefined, { method: 'GET', auth: null }),
      'route_not_found',
      'There is no operation GET /nothing.'
    )
  })

  it('should answer 404 route_not_found, with the usual headers and log line, for a path the router cannot read', async () => {
    // An over-long id or name is readable: it reaches its route and is not found (not-found.test.ts).
    for (const [path, shown] of [
      ['/v1/service/%zz/1', '/v1/service/%zz/1'],
      ['/v1/customer/%E0%A4%A', '/v1/customer/%E0%A4%A']
    ] as const) {
      const id = `unroutable-${path.length}`
      const response = await t.post(path, undefined, { headers: { 'x-request-id': id } })
      exactly(response, 'route_not_found', `There is no operation POST ${shown}: its path is not valid percent-encoding of UTF-8 text.`)
      assert.equal(response.headers['x-request-id'], id)
      assert.equal(response.headers['x-content-type-options'], 'nosniff')
      assert.equal(response.headers['cache-control'], 'no-store')
      const logged = t.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.request_id === id)
      assert.deepEqual(
        logged.map((line) => ({ msg: line.msg, status: line.status, route: line.route })),
        [{ msg: 'request completed', status: 404, route: 'unmatched' }]
      )
    }
    const get = await t.post('/v1/service/%zz/1', undefined, { method: 'GET' })
    exactly(get, 'method_not_allowed', 'Every /v1 operation is called with POST, not GET.')
    assert.equal(get.headers.allow, 'POST')
  })

  // method_not_allowed

  for (const path of [
    '/v1/service/stats',
    '/v1/service/create',
    '/v1/service/Laundry/1',
    '/v1/not/a/route',
    '/v1',
    '/v1/service/stats?x=1'
  ]) {
    it(`should answer 405 method_not_allowed with Allow: POST for every other method on ${path}`, async () => {
      for (const method of ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const) {
        const response = await t.post(path, undefined, { method })
        exactly(response, 'method_not_allowed', `Every /v1 operation is called with POST, not ${method}.`)
        assert.equal(response.headers.allow, 'POST')
        assert.equal(response.headers['cache-control'], 'no-store')
      }
      // HEAD: the same status and headers, no body.
      const head = await t.post(path, undefined, { method: 'HEAD' })
      assert.equal(head.statusCode, 405)
      assert.equal(head.headers.allow, 'POST')
      assert.equal(head.headers['content-type'], 'application/problem+json; charset=utf-8')
      assert.equal(head.body, '')
    })
  }

  it('should answer 405 before asking for credentials', async () => {
    const response = await t.post('/v1/service/stats', undefined, { method: 'GET', auth: null })
    problem(response, 'method_not_allowed')
    assert.equal(response.headers['www-authenticate'], undefined)
  })

  // unauthenticated

  for (const [label, authorization] of [
    ['no Authorization header', null],
    ['a Bearer token', 'Bearer abc.def.ghi'],
    ['Basic without credentials', 'Basic'],
    ['Basic with characters outside base64', 'Basic !!!notbase64!!!'],
    ['Basic without a colon', `Basic ${Buffer.from('justauser').toString('base64')}`],
    ['Basic with an empty user name', basic('', 'x'.repeat(43))],
    ['an over-long header', `Basic ${'A'.repeat(5000)}`],
    ['an unknown key id', basic('key_doesnotexist000', 'x'.repeat(43))],
    ['an unknown customer e-mail', basic('nobody@example.com', 'password123')],
    ['a key id holding NUL', basic('key_\u0000x', 'x'.repeat(43))],
    ['an e-mail holding NUL', basic('a\u0000@example.com', 'password123')],
    ['a password holding a control character', basic('nobody@example.com', 'pass\nword')]
  ] as const) {
    it(`should answer 401 unauthenticated with the Basic challenge for ${label}`, async () => {
      const response = await t.post('/v1/service/stats', undefined, { auth: authorization })
      exactly(response, 'unauthenticated', UNAUTHENTICATED)
      assert.equal(response.headers['www-authenticate'], CHALLENGE)
    })
  }

  it('should answer 401 unauthenticated for a known key id with a wrong secret', async () => {
    const keyId = Buffer.from(t.auth.staff.slice('Basic '.length), 'base64').toString('utf8').split(':')[0]!
    const response = await t.post('/v1/service/stats', undefined, { auth: basic(keyId, 'wrong-secret-'.repeat(4)) })
    exactly(response, 'unauthenticated', UNAUTHENTICATED)
    assert.equal(response.headers['www-authenticate'], CHALLENGE)
  })

  it('should accept the Basic scheme name in any case (RFC 7235)', async () => {
    const lower = t.auth.staff.replace(/^Basic/, 'basic')
    ok(await t.post('/v1/service/stats', undefined, { auth: lower }))
  })

  it('should answer 401 on an open route too, and before looking at the body', async () => {
    exactly(await t.post('/v1/service/Laundry/1', undefined, { auth: null }), 'unauthenticated', UNAUTHENTICATED)
    exactly(
      await t.post('/v1/service/create', undefined, { auth: null, raw: '{', contentType: 'application/json' }),
      'unauthenticated',
      UNAUTHENTICATED
    )
  })

  // forbidden

  it('should answer 403 forbidden, without a challenge, to a valid credential of another role', async () => {
    const response = await t.post('/v1/service/stats', undefined, { auth: t.auth.app })
    exactly(response, 'forbidden', 'These credentials may not call this operation.')
    assert.equal(response.headers['www-authenticate'], undefined)
  })

  it('should never put a stack trace, SQL or a secret in any problem document', async () => {
    const responses = [
      await t.post('/v1/service/create', undefined, { raw: '{', contentType: 'application/json' }),
      await t.post('/v1/service/create', { service_name: 1 }),
      await t.post('/v1/service/stats', undefined, { auth: basic('nobody@example.com', 'hunter2hunter2') }),
      await t.post('/v1/service/Nothing/1'),
      await t.post('/v1/service/create', { service_name: 'Laundry', description: 'again' })
    ]
    for (const response of responses) {
      assert.ok(response.statusCode >= 400)
      assert.doesNotMatch(response.body, /\bat .+:\d+:\d+|select |insert |update |hunter2|SQLITE|stack/i)
    }
    problem(responses[3]!, 'service_not_found')
    problem(responses[4]!, 'service_exists')
  })
})
