import assert from 'node:assert/strict'
import { before, it } from 'node:test'
import { PROBLEM_STATUS, type ProblemCode } from '../../src/platform/problems.js'
import { describeEachDialect, type TestApp } from '../helpers/app.js'
import { ok, problem } from '../helpers/assertions.js'

/** GET without credentials. */
const get = (t: TestApp, url: string) => t.post(url, undefined, { method: 'GET', auth: null })

/** The value of one Prometheus series in a scrape, 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? 0 : Number(line.slice(series.length + 1))
}

/** Every (method, path) Fastify routes, from printRoutes' tree. */
function routesOf(t: TestApp): Array<{ method: string; path: string }> {
  const routes: Array<{ method: string; path: string }> = []
  const stack: string[] = []
  for (const line of t.app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:│ {3}| {4})*)(?:├── |└── )(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line)
    if (match === null) continue
    const depth = match[1]!.length / 4
    stack.length = depth
    stack.push(match[2]!)
    const path = stack.join('')
    for (const method of (match[3] ?? '')
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean))
      routes.push({ method, path })
  }
  return routes
}

type Operation = {
  operationId?: string
  security?: unknown
  responses: Record<string, { content?: Record<string, { schema: { properties: { code: { enum: string[] } } } }> }>
}
type Document = { openapi: string; info: { description: string }; paths: Record<string, Record<string, Operation>> }

/** The problem codes an operation lists, by status. */
function problemCodes(operation: Operation): Record<string, string[]> {
  const codes: Record<string, string[]> = {}
  for (const [status, response] of Object.entries(operation.responses)) {
    const schema = response.content?.['application/problem+json']?.schema
    if (schema !== undefined) codes[status] = [...schema.properties.code.enum].sort()
  }
  return codes
}

describeEachDialect('operations endpoints (D-71)', (t) => {
  let document: Document

  before(async () => {
    ok(await t.post('/v1/service/create', { service_name: 'Laundry', description: 'Drop off' }))
    document = ok<Document>(await get(t, '/openapi.json'))
  })

  it('should answer /healthz 200 {"status":"ok"} without credentials', async () => {
    assert.deepEqual(ok(await get(t, '/healthz')), { status: 'ok' })
  })

  it('should answer /readyz 200 {"status":"ready"} without credentials', async () => {
    assert.deepEqual(ok(await get(t, '/readyz')), { status: 'ready' })
  })

  it('should count requests by route, method and status in /metrics', async () => {
    const before = (await get(t, '/metrics')).body
    ok(await t.post('/v1/service/stats'))
    ok(await t.post('/v1/service/stats'))
    await t.post('/v1/service/stats', undefined, { auth: null })
    ok(await t.post('/v1/service/Laundry/1'))
    await t.post('/v1/service/stats', undefined, { method: 'GET' })
    const response = await get(t, '/metrics')
    assert.equal(response.statusCode, 200)
    assert.equal(response.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8')
    const after = response.body
    const delta = (series: string) => sample(after, series) - sample(before, series)

    assert.equal(delta('http_requests_total{route="/v1/service/stats",method="POST",status="200"}'), 2)
    assert.equal(delta('http_requests_total{route="/v1/service/stats",method="POST",status="401"}'), 1)
    assert.equal(delta('http_requests_total{route="/v1/service/:service_name/:position_number",method="POST",status="200"}'), 1)
    assert.equal(delta('http_requests_total{route="unmatched",method="GET",status="405"}'), 1)
    // The scrape before this one was counted too.
    assert.equal(delta('http_requests_total{route="/metrics",method="GET",status="200"}'), 1)
    // Durations by route and status too (D-71): a slow 401 is told apart from a slow 200.
    assert.equal(delta('http_request_duration_seconds_count{route="/v1/service/stats",method="POST",status="200"}'), 2)
    assert.equal(delta('http_request_duration_seconds_count{route="/v1/service/stats",method="POST",status="401"}'), 1)
    assert.match(after, /^# TYPE http_requests_total counter$/m)
    assert.match(after, /^# TYPE http_request_duration_seconds histogram$/m)
    assert.match(after, /^http_request_duration_seconds_bucket\{le="\+Inf",route="\/v1\/service\/stats",method="POST",status="200"\} \d+$/m)
    assert.ok(sample(after, 'http_request_duration_seconds_sum{route="/v1/service/stats",method="POST",status="200"}') > 0)
    // Password hashes hold 32 MiB each: how many run and wait is in every scrape (none here).
    assert.match(after, /^# TYPE password_hashes gauge$/m)
    assert.match(after, /^password_hashes\{state="running"\} 0$/m)
    assert.match(after, /^password_hashes\{state="waiting"\} 0$/m)
    // SQLite: group commits, WAL checkpoints run by a worker thread and the WAL's size (issue 7).
    if (t.dialect === 'sqlite') {
      assert.match(after, /^sqlite_commits \d+$/m)
      assert.match(after, /^sqlite_checkpoints\{outcome="done"\} \d+$/m)
      assert.match(after, /^sqlite_checkpoints\{outcome="busy"\} \d+$/m)
      assert.match(after, /^sqlite_checkpoints\{outcome="failed"\} 0$/m)
      assert.match(after, /^sqlite_wal_frames \d+$/m)
    } else {
      assert.doesNotMatch(after, /^sqlite_/m)
    }
  })

  it('should serve an OpenAPI 3.1 document without credentials', () => {
    assert.equal(document.openapi, '3.1.0')
  })

  it('should list every /v1 operation of the app, each POST with a unique operationId', () => {
    const routed = routesOf(t)
      .filter((r) => r.path.startsWith('/v1/'))
      .map((r) => `${r.method} ${r.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`)
      .sort()
    const documented = Object.entries(document.paths)
      .filter(([path]) => path.startsWith('/v1/'))
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`))
      .sort()
    assert.ok(routed.length >= 10, routed.join('\n'))
    assert.deepEqual(documented, routed)
    const ids = Object.entries(document.paths)
      .filter(([path]) => path.startsWith('/v1/'))
      .map(([path, operations]) => {
        assert.deepEqual(Object.keys(operations), ['post'], path)
        const id = operations.post!.operationId
        assert.equal(typeof id, 'string', `${path} has no operationId`)
        // D-10: every /v1 call takes HTTP Basic credentials (a module may also admit a body token).
        assert.ok(Array.isArray(operations.post!.security), `${path} declares its security`)
        assert.ok(
          (operations.post!.security as unknown[]).some((s) => JSON.stringify(s) === '{"basicAuth":[]}'),
          path
        )
        return id
      })
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique')
  })

  it('should list the problem codes of create service by status', () => {
    assert.deepEqual(problemCodes(document.paths['/v1/service/create']!.post!), {
      400: ['invalid_json', 'validation_failed'],
      401: ['unauthenticated'],
      // A console session without its CSRF token (D-16).
      403: ['csrf_failed', 'forbidden'],
      408: ['request_timeout'],
      409: ['service_exists'],
      413: ['payload_too_large'],
      415: ['unsupported_media_type'],
      422: ['idempotency_key_reused'],
      429: ['rate_limited'],
      431: ['headers_too_large'],
      500: ['internal'],
      503: ['unavailable']
    })
  })

  it('should list the problem codes of the body-less, open get service step', () => {
    // The connection layer's answers (400 for a request HTTP/1.x cannot parse, 408, 431) reach every operation.
    assert.deepEqual(problemCodes(document.paths['/v1/service/{service_name}/{position_number}']!.post!), {
      400: ['validation_failed'],
      401: ['unauthenticated'],
      // Open to every caller, but a console session must still send its CSRF token (D-16).
      403: ['csrf_failed'],
      // A segment whose percent-encoding cannot be decoded (%ZZ) reaches no route.
      404: ['route_not_found', 'service_not_found', 'step_not_found'],
      408: ['request_timeout'],
      429: ['rate_limited'],
      431: ['headers_too_large'],
      500: ['internal'],
      503: ['unavailable']
    })
  })

  it('should list route_not_found where a path has parameters, and body errors only where there is a body (D-23)', async () => {
    for (const [path, operations] of Object.entries(document.paths)) {
      if (!path.startsWith('/v1/')) continue
      const operation = operations.post as (Operation & { requestBody?: unknown }) | undefined
      if (operation === undefined) continue
      const codes = Object.values(problemCodes(operation)).flat()
      assert.equal(codes.includes('route_not_found'), path.includes('{'), `${path} route_not_found`)
      for (const code of ['invalid_json', 'payload_too_large', 'unsupported_media_type']) {
        assert.equal(codes.includes(code), operation.requestBody !== undefined, `${path} ${code}`)
      }
    }
    problem(await t.post('/v1/service/%ZZ/1'), 'route_not_found')
    problem(await t.post('/v1/transaction/%ZZ/history'), 'route_not_found')
  })

  it('should declare the response headers: X-Request-Id and nosniff everywhere, no-store on /v1 and POST, the challenge on 401, Accept-Encoding on 415, Retry-After on 429 and 503', () => {
    let responses = 0
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const [status, response] of Object.entries(
          (operation as { responses: Record<string, { headers?: Record<string, unknown> }> }).responses
        )) {
          const names = Object.keys(response.headers ?? {})
          const expected = [
            'X-Request-Id',
            'X-Content-Type-Options',
            ...(method === 'post' || path.startsWith('/v1/') ? ['Cache-Control'] : []),
            ...(status === '401' ? ['WWW-Authenticate'] : []),
            ...(status === '415' ? ['Accept-Encoding'] : []),
            ...(status === '429' || status === '503' ? ['Retry-After'] : [])
          ]
          assert.deepEqual(names, expected, `${method} ${path} ${status}`)
          responses++
        }
      }
    }
    assert.ok(responses > 200, `only ${responses} responses`)
  })

  it('should give every 200 answer its media type: JSON, or the text of the pages and the metrics', async () => {
    const text: Record<string, string> = {}
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const operation of Object.values(operations)) {
        const types = Object.keys(operation.responses['200']?.content ?? {})
        assert.equal(types.length, 1, `${path} ${operation.operationId}`)
        if (types[0] !== 'application/json') text[operation.operationId!] = types[0]!
      }
    }
    assert.deepEqual(text, {
      metrics: 'text/plain; version=0.0.4',
      resetPasswordPage: 'text/html',
      setPasswordPage: 'text/html',
      consolePage: 'text/html',
      trackingPage: 'text/html'
    })
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' })
    assert.equal(metrics.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8')
  })

  it('should mark a request body optional only where the operation takes none (transaction list, customer list)', async () => {
    const optional = Object.entries(document.paths).filter(
      ([, operations]) => (operations.post as { requestBody?: { required: boolean } } | undefined)?.requestBody?.required === false
    )
    assert.deepEqual(
      optional.map(([path]) => path),
      ['/v1/customer/list', '/v1/transaction/list']
    )
    const listed = ok<{ transactions: unknown[] }>(await t.post('/v1/transaction/list'))
    assert.ok(Array.isArray(listed.transactions))
    const customers = ok<{ customers: unknown[] }>(await t.post('/v1/customer/list'))
    assert.ok(Array.isArray(customers.customers))
  })

  it('should file every listed code under its own status, on every operation', () => {
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const codes = problemCodes(operation)
        for (const [status, list] of Object.entries(codes)) {
          for (const code of list) assert.equal(String(PROBLEM_STATUS[code as ProblemCode]), status, `${method} ${path}: ${code}`)
        }
        if (path.startsWith('/v1/')) {
          // Every /v1 call needs credentials and may meet the database being away.
          assert.ok(codes[401]?.includes('unauthenticated'), `${path} lists unauthenticated`)
          assert.ok(codes[503]?.includes('unavailable'), `${path} lists unavailable`)
          assert.ok(codes[500]?.includes('internal'), `${path} lists internal`)
        }
      }
    }
  })

  it('should name every problem code and its status in the document description', () => {
    for (const [code, status] of Object.entries(PROBLEM_STATUS)) {
      assert.ok(document.info.description.includes(`\`${code}\` ${status}`), code)
    }
  })

  it('should serve a browsable reference at /docs without credentials', async () => {
    const response = await get(t, '/docs')
    assert.equal(response.statusCode, 200)
    assert.equal(response.headers['content-type'], 'text/html; charset=utf-8')
    assert.match(response.body, /<html/i)
  })
})
