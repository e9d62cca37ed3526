import assert from 'node:assert/strict'
import { before, it } from 'node:test'
import fc from 'fast-check'
import type { InjectOptions } from 'fastify'
import { describeEachDialect, type TestApp } from '../helpers/app.js'
import { BASE_SEED, mutate, mutation, oddContentType, oddHeader, oddPayload, oddSegment, settings } from '../helpers/fuzz.js'
import {
  appV1Routes,
  type CallerClass,
  D12,
  type Example,
  Fixtures,
  type Person,
  ROUTES,
  type RouteSpec
} from '../helpers/route-catalogue.js'
import { assertSound, changedTables, type Snapshot, snapshot, tableNames } from '../helpers/state.js'

// Runs per property and route: a fixed sample in `npm test`, many more in `npm run fuzz` (FUZZ=long).
const RUNS = {
  mutated: { short: 40, long: 5000 },
  json: { short: 12, long: 1500 },
  payload: { short: 10, long: 1250 },
  path: { short: 16, long: 2000 }
}

if (process.env.FUZZ === 'long' || process.env.FUZZ_SEED !== undefined) {
  process.stdout.write(`fuzz: base seed ${BASE_SEED} (replay with FUZZ_SEED=${BASE_SEED})\n`)
}

/** Paths to every leaf (non-container value) of a JSON value. */
function leaves(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return path.length === 0 ? [] : [path]
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value)
  return entries.flatMap(([key, child]) => leaves(child, [...path, key]))
}

/** A deep copy of `value` with the leaf at `path` replaced. */
function replaceAt(value: unknown, path: readonly (string | number)[], replacement: unknown): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>
  let node = copy
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>
  node[path.at(-1)!] = replacement
  return copy
}

describeEachDialect('fuzzing every /v1 route through HTTP (issue 8)', (t: TestApp) => {
  let fx: Fixtures
  let tables: string[]
  let current: Snapshot
  let signer: Person
  let address = 0
  /** Each route's valid request, per caller class allowed to make it; made before any fuzzing. */
  const bases = new Map<string, Map<CallerClass, Example>>()

  /**
   * Caller classes D-12 and D-18 let make the request, they reach validation and beyond: staff
   * first, or the admin key first for operations of admins only (D-18).
   */
  function callersOf(route: RouteSpec): CallerClass[] {
    const callers = (['staff', 'customer', 'app'] as const).filter((caller) => D12[route.who][caller] !== 'no')
    return D12[route.who].staff === 'no' ? ['admin', ...callers] : callers
  }

  /** The caller the payload and JSON properties send as: staff, or admin where staff may not call. */
  function privileged(route: RouteSpec): CallerClass {
    return callersOf(route)[0]!
  }

  function authOf(caller: CallerClass): string {
    return caller === 'staff' ? t.auth.staff : caller === 'admin' ? t.auth.admin : caller === 'app' ? t.auth.app : fx.me.auth
  }

  before(async () => {
    fx = await new Fixtures(t).setUp()
    // Sign-in is fuzzed with a customer of its own: its failures count against that e-mail (D-14),
    // and must not lock out the customer every other property calls as.
    signer = await fx.person()
    for (const route of ROUTES) {
      if (!t.app.hasRoute({ method: 'POST', url: route.route })) continue
      const perCaller = new Map<CallerClass, Example>()
      for (const caller of callersOf(route)) perCaller.set(caller, await route.example(fx, route.id === 'signIn' ? signer : fx.me))
      bases.set(route.id, perCaller)
    }
    tables = await tableNames(t)
    current = await snapshot(t, tables)
  })

  /**
   * Sends one request and checks the invariants: sound answer (assertSound), and a rejected request
   * (or any answer of an operation that only reads) leaves every table as it was. Each request comes
   * from another client address, so the per-address limits of D-14 do not turn the run into 429s.
   */
  async function send(route: RouteSpec, request: InjectOptions & { url: string }, context: string, anyRoute = false): Promise<void> {
    address++
    const headers = { ...(request.headers as Record<string, string> | undefined) }
    const response = await t.app.inject({
      method: 'POST',
      remoteAddress: `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`,
      ...request,
      headers
    })
    const where = `${context} ${request.url}${request.payload === undefined ? '' : ` ${String(request.payload).slice(0, 200)}`}`
    assertSound(response, where)
    const rejected = response.statusCode >= 400
    // A changed path may reach another operation, which may write when it succeeds.
    if (!rejected && (route.writes || anyRoute)) {
      current = await snapshot(t, tables)
      return
    }
    const after = await snapshot(t, tables)
    // D-52: a rejected request sent with an Idempotency-Key is remembered, so a retry answers the same.
    const except = headers['idempotency-key'] !== undefined ? ['idempotency_keys'] : []
    assert.deepEqual(
      changedTables(current, after, except),
      [],
      `${rejected ? 'a rejected request' : 'a read'} wrote: ${where} → ${response.statusCode} ${response.body.slice(0, 200)}`
    )
    current = after
  }

  it('should have every /v1 route of the app in the route catalogue, and nothing else', async () => {
    assert.deepEqual(await appV1Routes(t), ROUTES.map((r) => r.route).sort())
  })

  for (const route of ROUTES) {
    const served = () => bases.has(route.id)

    if (route.body) {
      it(`should answer ${route.id} with no 5xx and change nothing when rejected, for bodies with fields dropped, retyped and added`, async (c) => {
        if (!served()) return c.skip('not served by this app')
        const callers = callersOf(route)
        await fc.assert(
          fc.asyncProperty(
            fc.constantFrom(...callers),
            fc.array(mutation, { minLength: 1, maxLength: 3 }),
            fc.option(oddHeader, { freq: 4 }),
            async (caller, mutations, key) => {
              const base = bases.get(route.id)!.get(caller)!
              const body = mutate(base.body, mutations)
              const headers: Record<string, string> = { authorization: authOf(caller), 'content-type': 'application/json' }
              if (key !== null) headers['idempotency-key'] = key
              await send(route, { url: base.path, headers, payload: JSON.stringify(body) }, `[${caller}]`)
            }
          ),
          settings(`${route.id}:mutated`, RUNS.mutated)
        )
      })

      it(`should answer ${route.id} with no 5xx and change nothing when rejected, for arbitrary JSON bodies`, async (c) => {
        if (!served()) return c.skip('not served by this app')
        await fc.assert(
          fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), async (json) => {
            const base = bases.get(route.id)!.get(privileged(route))!
            const headers = { authorization: authOf(privileged(route)), 'content-type': 'application/json' }
            await send(route, { url: base.path, headers, payload: JSON.stringify(json) ?? 'null' }, `[${privileged(route)}]`)
          }),
          settings(`${route.id}:json`, RUNS.json)
        )
      })
    }

    it(`should answer ${route.id} with no 5xx and change nothing when rejected, for raw payloads of any content type`, async (c) => {
      if (!served()) return c.skip('not served by this app')
      await fc.assert(
        fc.asyncProperty(oddPayload, oddContentType, async (payload, contentType) => {
          const base = bases.get(route.id)!.get(privileged(route))!
          const headers: Record<string, string> = { authorization: authOf(privileged(route)) }
          if (contentType !== undefined) headers['content-type'] = contentType
          await send(route, { url: base.path, headers, payload }, `[${privileged(route)} ${contentType ?? 'no content type'}]`)
        }),
        settings(`${route.id}:payload`, RUNS.payload)
      )
    })

    it(`should answer ${route.id} with no 5xx and change nothing, for odd path segments (%2F, %00, .., long, odd Unicode)`, async (c) => {
      if (!served()) return c.skip('not served by this app')
      const segments = route.route.split('/')
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...callersOf(route)),
          fc.nat(),
          oddSegment,
          fc.constantFrom('replace', 'append', 'insert'),
          async (caller, which, segment, how) => {
            const base = bases.get(route.id)!.get(caller)!
            const parts = base.path.split('/')
            // A parameter's segment, or any segment after /v1 when the route has none.
            const slots = segments.map((s, i) => ((route.params.length === 0 ? i >= 2 : s.startsWith(':')) ? i : -1)).filter((i) => i >= 0)
            const index = slots[which % slots.length]!
            if (how === 'replace') parts[index] = segment
            else if (how === 'append') parts.push(segment)
            else parts.splice(index, 0, segment)
            const headers: Record<string, string> = { authorization: authOf(caller) }
            const request: InjectOptions & { url: string } = { url: parts.join('/'), headers }
            if (route.body) {
              headers['content-type'] = 'application/json'
              request.payload = JSON.stringify(base.body)
            }
            await send(route, request, `[${caller} ${how}]`, true)
          }
        ),
        settings(`${route.id}:path`, RUNS.path)
      )
    })
  }

  // Beside the random runs, the hostile values every field and segment gets, deterministically.
  const HOSTILE_SEGMENTS = [
    '%00',
    'a%00b',
    '%2F',
    'a%2Fb',
    '..',
    '%2e%2e',
    '.',
    '%0A',
    '%C0%AF',
    '%FF',
    '%ED%A0%80',
    'x'.repeat(501),
    '-1',
    '99999999999999999999'
  ]
  const HOSTILE_VALUES: unknown[] = [
    '\u0000',
    'a\u0000b',
    '\u001b[31m',
    '\ud800',
    '%00',
    '../..',
    'x'.repeat(5000),
    -1,
    0,
    1.5,
    2 ** 53 + 2,
    1e308,
    -1e308,
    '99999999999999999999',
    true,
    null,
    [],
    {},
    ['\u0000'],
    { event: '\u0000' }
  ]

  for (const route of ROUTES) {
    it(`should answer ${route.id} with no 5xx and change nothing when rejected, for each hostile value in each field and segment`, async (c) => {
      if (!bases.has(route.id)) return c.skip('not served by this app')
      for (const caller of callersOf(route)) {
        const base = bases.get(route.id)!.get(caller)!
        const headers = { authorization: authOf(caller), ...(route.body ? { 'content-type': 'application/json' } : {}) }
        const payload = route.body ? JSON.stringify(base.body) : undefined
        const parts = base.path.split('/')
        const slots = route.route.split('/').flatMap((segment, i) => (segment.startsWith(':') ? [i] : []))
        for (const slot of slots) {
          for (const segment of HOSTILE_SEGMENTS) {
            const url = parts.map((part, i) => (i === slot ? segment : part)).join('/')
            await send(route, { url, headers, ...(payload === undefined ? {} : { payload }) }, `[${caller} segment]`, true)
          }
        }
        for (const pointer of leaves(base.body)) {
          for (const value of HOSTILE_VALUES) {
            await send(
              route,
              { url: base.path, headers, payload: JSON.stringify(replaceAt(base.body, pointer, value)) },
              `[${caller} ${pointer.join('/')}]`
            )
          }
        }
      }
    })
  }

  it('should have checked every table after every rejected request', (c) => {
    assert.ok(tables.length >= 10, `tables: ${tables.join(', ')}`)
    assert.ok(address > 0)
    c.diagnostic(`${address} requests, ${tables.length} tables compared around each, base seed ${BASE_SEED}`)
  })
})
