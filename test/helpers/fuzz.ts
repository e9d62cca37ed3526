import fc from 'fast-check'

/**
 * Arbitraries and settings of the fuzz suite (issue 8). `npm test` runs each property with a fixed
 * seed and few runs; `npm run fuzz` (FUZZ=long) runs many more from a random seed, printed first.
 * FUZZ_SEED and FUZZ_RUNS override both, to replay a failure: fast-check prints the seed and path.
 */

const LONG = process.env.FUZZ === 'long'

/** The seed every property's own seed is derived from. */
export const BASE_SEED =
  process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : LONG ? Math.floor(Math.random() * 2 ** 31) : 20_260_808

/** How many runs a property gets in the test suite (`short`) and in a long run (`long`). */
export interface Runs {
  short: number
  long: number
}

/** Runs per property in this run. */
function runs({ short, long }: Runs): number {
  if (process.env.FUZZ_RUNS !== undefined) return Number(process.env.FUZZ_RUNS)
  return LONG ? long : short
}

/** A seed of its own per property, stable for a base seed (FNV-1a of the property's name). */
function seedOf(name: string): number {
  let hash = 0x811c9dc5
  for (const char of name) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0
  return (hash ^ BASE_SEED) | 0
}

/** fc.assert's settings for one property. */
export function settings(name: string, counts: Runs): fc.Parameters<unknown> {
  return { seed: seedOf(name), numRuns: runs(counts), endOnFailure: true }
}

const CONTROL = fc.integer({ min: 0, max: 0x1f }).map((code) => String.fromCharCode(code))

/** Text a field is unlikely to expect: control characters, NUL, odd Unicode, lone surrogates, long runs. */
const oddText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc
    .array(fc.oneof(CONTROL, fc.constantFrom('\u0000', '\u007f', '\u2028', '\ufeff', '\u202e', '\ud800', '\udfff', 'é', '𝒜', '👩‍👩‍👧')), {
      maxLength: 12
    })
    .map((parts) => parts.join('')),
  fc.tuple(fc.string({ maxLength: 5 }), CONTROL, fc.string({ maxLength: 5 })).map(([a, c, b]) => `${a}${c}${b}`),
  fc.constantFrom(
    '',
    ' ',
    '\t',
    'null',
    'undefined',
    '0',
    '-1',
    '1e309',
    'NaN',
    '../..',
    '%00',
    '%2F',
    '<script>',
    "' or 1=1 --",
    '${x}',
    '{{7*7}}'
  ),
  fc.constantFrom(...['a', '9', 'é', '\u0000', ' ']).chain((char) => fc.integer({ min: 90, max: 5000 }).map((n) => char.repeat(n)))
)

/** Numbers at and beyond every edge: huge, negative, fractional, the float edges. */
const oddNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(
    0,
    -0,
    -1,
    1,
    1.5,
    -2_147_483_649,
    2_147_483_648,
    2 ** 53,
    2 ** 53 + 2,
    -(2 ** 53),
    2 ** 63,
    1e21,
    1e308,
    -1e308,
    5e-324,
    946_684_799,
    4_102_444_801,
    10_000_001,
    999,
    1000
  )
)

/** Any JSON value a field could be given instead of its own: wrong types of every kind. */
const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: oddText },
  { weight: 3, arbitrary: oddNumber },
  { weight: 1, arbitrary: fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String) },
  { weight: 1, arbitrary: fc.constantFrom(true, false, null) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.constantFrom([], {}, [[]], { event: 'email' }, ['email'], [{ event: '\u0000' }]) }
)

/** A key a body could be given beyond its own: prototype names included. */
const oddKey: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'preferences',
    'status',
    'quantity',
    'position',
    'note',
    'notes',
    'customer_id',
    'password',
    '',
    '\u0000'
  )
)

type Json = unknown
type Path = readonly (string | number)[]

/** Every path into a JSON value (objects and arrays), the root included. */
function containers(value: Json, path: Path = []): Path[] {
  if (value === null || typeof value !== 'object') return []
  const here: Path[] = [path]
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value)
  for (const [key, child] of entries) here.push(...containers(child, [...path, key]))
  return here
}

function at(value: Json, path: Path): Json {
  return path.reduce<Json>((node, key) => (node as Record<string | number, Json>)[key], value)
}

/** One change to a body: a field dropped, retyped or added, anywhere in it. */
export type Mutation = { kind: 'drop' | 'set'; container: number; key: number; value: unknown; extra: string }

export const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom('drop', 'set', 'set', 'set') as fc.Arbitrary<'drop' | 'set'>,
  container: fc.nat(),
  key: fc.nat(),
  value: oddValue,
  extra: oddKey
})

/** The body with the mutations applied (a deep copy; `set` on a key past the end adds a field). */
export function mutate(body: Json, mutations: readonly Mutation[]): Json {
  const copy = structuredClone(body)
  for (const m of mutations) {
    const all = containers(copy)
    if (all.length === 0) break
    const container = at(copy, all[m.container % all.length]!) as Record<string, Json> | Json[]
    const keys = Object.keys(container)
    // One slot past the existing keys: a new field (or element).
    const index = m.key % (keys.length + 1)
    const key = index === keys.length ? (Array.isArray(container) ? String(keys.length) : m.extra) : keys[index]!
    if (m.kind === 'drop' && index < keys.length) {
      if (Array.isArray(container)) container.splice(Number(key), 1)
      else delete container[key]
    } else {
      // defineProperty: `__proto__` becomes a field of its own, as JSON.parse makes it on the server;
      // a copy, since fast-check may hand two mutations the same value (a later one would make it cyclic).
      Object.defineProperty(container, key, { value: structuredClone(m.value), enumerable: true, writable: true, configurable: true })
    }
  }
  return copy
}

/** Path segments made to confuse routers and lookups: encoded slashes, NUL, dot segments, odd encodings. */
export const oddSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '%2F',
    '%2f',
    '%00',
    'a%00b',
    '..',
    '.',
    '%2e%2e',
    '%2E',
    '%',
    '%zz',
    '%C0%AF',
    '%FF',
    '%E2%80%AE',
    '%0A',
    '%0D%0A',
    '%09',
    '%20',
    'a%2Fb',
    '..%2F..%2Fetc%2Fpasswd',
    '%252F',
    '%u0000',
    ';',
    '~',
    '-1',
    '0',
    '00',
    '1.5',
    '1e3',
    '99999999999999999999',
    'NaN',
    'stats',
    'create',
    '%F0%9F%92%A9'
  ),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).map((text) => encodeURIComponent(text)),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }).map(encodeLoosely),
  fc.integer({ min: 400, max: 700 }).map((n) => 'x'.repeat(n))
)

/** encodeURIComponent, with lone surrogates (which it refuses) written as raw invalid bytes. */
function encodeLoosely(text: string): string {
  try {
    return encodeURIComponent(text)
  } catch {
    return [...text].map((c) => (/[\ud800-\udfff]/.test(c) ? '%ED%A0%80' : encodeURIComponent(c))).join('')
  }
}

/** Header values a client could send as an Idempotency-Key (only what Node lets a client write). */
export const oddHeader: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary-ascii', maxLength: 40 }).map((s) => s.replace(/[^\t\x20-\x7e]/g, '')),
  fc.constantFrom('', ' ', 'key with spaces', 'k'.repeat(256), 'k'.repeat(255)),
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 20 }).map((s) => s.replace(/[^\x21-\x7e]/g, 'k') || 'k')
)

/** Raw payloads sent as if they were JSON: broken JSON, other encodings, binary. */
export const oddPayload: fc.Arbitrary<string | Buffer> = fc.oneof(
  fc.json({ maxDepth: 3 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.json({ maxDepth: 2 }).chain((json) => fc.nat({ max: Math.max(0, json.length) }).map((n) => json.slice(0, n))),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
  fc.constantFrom(
    '',
    ' ',
    'null',
    '[]',
    '""',
    '{"a":1}{"b":2}',
    '{"__proto__":{"admin":true}}',
    '{"constructor":{"prototype":{"x":1}}}',
    '\ufeff{}',
    '{"a":"\\ud800"}',
    '{"a":1e99999}',
    '-0',
    '['.repeat(5000)
  )
)

/** Content types a payload may come with. */
export const oddContentType: fc.Arbitrary<string | undefined> = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/jsonx',
  'application/problem+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  undefined
)
