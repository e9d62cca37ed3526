import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { type PerfSummary, parseInclusive, parseReport, perfComparison, perfMarkdown, readableSymbol } from '../../bench/perf.js'

// `perf report --stdio -q -n -t ';'` as perf 6 prints it, by object and by object and symbol.
const BY_OBJECT = [
  ' 42.85% ; 2530       ;node               ',
  ' 24.05% ; 1420       ;[kernel.kallsyms]  ',
  ' 14.92% ; 881        ;[JIT] tid 6580     ',
  ''
].join('\n')
const BY_SYMBOL = [
  ' 11.45% ; 676        ;[kernel.kallsyms]  ;[k] _raw_spin_unlock_irqrestore',
  ' 3.10%  ; 183        ;better_sqlite3.node;[.] sqlite3VdbeExec',
  ' 0.20%  ; 12         ;node               ;[.] std::map<int;int>::find',
  '',
  '# a comment line'
].join('\n')

describe('bench perf summary (issue 7)', () => {
  it('should read shares, sample counts and objects, naming V8 generated code the same in every process', () => {
    const { samples, lines } = parseReport(BY_OBJECT)
    assert.equal(samples, 2530 + 1420 + 881)
    // Shares as printed (percent with two decimals), read as fractions.
    assert.deepEqual(
      lines.map((l) => ({ ...l, share: Math.round(l.share * 10_000) / 10_000 })),
      [
        { object: 'node', symbol: '', share: 0.4285 },
        { object: '[kernel.kallsyms]', symbol: '', share: 0.2405 },
        { object: '[JIT] (V8 generated code)', symbol: '', share: 0.1492 }
      ]
    )
  })

  it('should read symbols without their user or kernel mark, a ";" inside a symbol kept', () => {
    const { samples, lines } = parseReport(BY_SYMBOL)
    assert.equal(samples, 676 + 183 + 12)
    assert.deepEqual(
      lines.map((l) => [l.object, l.symbol]),
      [
        ['[kernel.kallsyms]', '_raw_spin_unlock_irqrestore'],
        ['better_sqlite3.node', 'sqlite3VdbeExec'],
        ['node', 'std::map<int;int>::find']
      ]
    )
    assert.ok(Math.abs(lines[0]!.share - 0.1145) < 1e-9)
  })

  it("should compare get-transaction's CPU per request with the reference's when both were sampled", () => {
    const summary = (cpuMicrosPerRequest: number): PerfSummary => ({
      file: 'f',
      samples: 1,
      requests: 1,
      cpuMicrosPerRequest,
      byObject: [],
      top: []
    })
    assert.equal(
      perfComparison([
        { scenario: 'reference-transaction', summary: summary(100) },
        { scenario: 'get-transaction', summary: summary(125.4) }
      ]),
      'CPU per request (perf): get-transaction 125 µs, the hand-prepared reference 100 µs: 25 µs more (1.25×)'
    )
    assert.equal(perfComparison([{ scenario: 'get-transaction', summary: summary(125) }]), null)
    assert.equal(
      perfComparison([
        { scenario: 'get-transaction', summary: summary(90) },
        { scenario: 'reference-transaction', summary: summary(100) }
      ])?.endsWith('10 µs less (0.90×)'),
      true
    )
  })

  it("should name JavaScript functions from V8's perf map by file and line: the build, packages, Node, generated code", () => {
    assert.equal(
      readableSymbol('JS:*toTransactionView file:///work/main/.bench/build/dist/modules/orders/orders.views.js:15:34'),
      'toTransactionView (dist/modules/orders/orders.views.js:15)'
    )
    assert.equal(
      readableSymbol('JS:*escapeStringLoop /work/main/node_modules/fast-json-stringify/lib/serializer.js:38:27'),
      'escapeStringLoop (fast-json-stringify/lib/serializer.js:38)'
    )
    assert.equal(
      readableSymbol('JS:~clearBuffer node:internal/streams/writable:744:21'),
      'clearBuffer (node:internal/streams/writable:744)'
    )
    assert.equal(readableSymbol('JS:*anonymous0 :520:27'), 'anonymous0 (generated:520)')
    assert.equal(
      readableSymbol('JS:* file:///work/main/.bench/build/dist/platform/auth.js:226:34'),
      '(anonymous) (dist/platform/auth.js:226)'
    )
    assert.equal(readableSymbol('JS:^find /srv/app/node_modules/find-my-way/index.js:618:39'), 'find (find-my-way/index.js:618)')
    assert.equal(readableSymbol('JS:*startReference file:///work/main/bench/reference.ts:62:1'), 'startReference (bench/reference.ts:62)')
    // A package's own dist/ is the package's.
    assert.equal(
      readableSymbol('JS:*#run /work/main/node_modules/kysely/dist/esm/driver/single-connection-provider.js:23:9'),
      '#run (kysely/dist/esm/driver/single-connection-provider.js:23)'
    )
    // Anything else is kept as perf printed it.
    assert.equal(readableSymbol('Builtins_StringAdd_CheckNone'), 'Builtins_StringAdd_CheckNone')
    assert.equal(
      readableSymbol('v8::internal::JsonParser<unsigned char>::ParseJsonValue<false>'),
      'v8::internal::JsonParser<unsigned char>::ParseJsonValue<false>'
    )
  })

  it('should read the flat lists with JavaScript functions named', () => {
    const { lines } = parseReport(
      ' 0.77%  ; 75         ;[JIT] tid 6298     ;[.] JS:*toTransactionView file:///w/.bench/build/dist/modules/orders/orders.views.js:15:34\n'
    )
    assert.deepEqual(
      lines.map((l) => [l.object, l.symbol]),
      [['[JIT] (V8 generated code)', 'toTransactionView (dist/modules/orders/orders.views.js:15)']]
    )
  })

  it("should list only the project's functions (and the reference's) by inclusive share, largest first, at most the count asked", () => {
    const text = [
      ' 53.68% ; 0.18%  ; 17         ;[.] JS:*processTicksAndRejections node:internal/process/task_queues:67:35',
      ' 21.18% ; 0.36%  ; 35         ;[.] JS:*get file:///w/.bench/build/dist/modules/orders/orders.service.js:68:14',
      ' 13.56% ; 0.02%  ; 2          ;[.] Statement::JS_all',
      ' 4.02%  ; 0.27%  ; 26         ;[.] JS:*customerAdmittedAtOnce file:///w/.bench/build/dist/platform/auth.js:55:27',
      ' 5.64%  ; 0.72%  ; 70         ;[.] JS:*toTransactionView file:///w/.bench/build/dist/modules/orders/orders.views.js:15:34',
      ' 9.00%  ; 0.10%  ; 9          ;[.] JS:*find file:///w/bench/reference.ts:50:12',
      ' 1.25%  ; 0.82%  ; 80         ;[.] JS:*escapeStringLoop /w/node_modules/fast-json-stringify/lib/serializer.js:38:27',
      ' 13.80% ; 0.10%  ; 9          ;[.] JS:*connection.executeQuery /w/node_modules/kysely/dist/esm/driver/runtime-driver.js:106:30',
      // One function compiled twice (two tiers): one row, the two shares added.
      ' 3.00%  ; 0.10%  ; 9          ;[.] JS:*customerAdmittedAtOnce file:///w/.bench/build/dist/platform/auth.js:55:27',
      ''
    ].join('\n')
    const lines = parseInclusive(text)
    assert.deepEqual(
      lines.map((l) => [l.symbol, Math.round(l.share * 10_000) / 10_000]),
      [
        ['get (dist/modules/orders/orders.service.js:68)', 0.2118],
        ['find (bench/reference.ts:50)', 0.09],
        ['customerAdmittedAtOnce (dist/platform/auth.js:55)', 0.0702],
        ['toTransactionView (dist/modules/orders/orders.views.js:15)', 0.0564]
      ]
    )
    assert.deepEqual(
      parseInclusive(text, 2).map((l) => l.symbol),
      ['get (dist/modules/orders/orders.service.js:68)', 'find (bench/reference.ts:50)']
    )
  })

  it('should add the inclusive table to the markdown only when call graphs were recorded', () => {
    const base: PerfSummary = {
      file: '/x/get-transaction.perf.data',
      samples: 100,
      requests: 1000,
      cpuMicrosPerRequest: 50,
      byObject: [],
      top: []
    }
    assert.equal(perfMarkdown('perf: get-transaction', base).includes('inclusive'), false)
    const withGraph = perfMarkdown('perf: get-transaction', {
      ...base,
      inclusive: [{ object: '[JIT] (V8 generated code)', symbol: 'get (dist/a.js:1)', share: 0.2 }]
    })
    assert.match(withGraph, /\| function \| inclusive share \| µs per request \|/)
    assert.match(withGraph, /\| `get \(dist\/a\.js:1\)` \| 20\.0% \| 10\.0 \|/)
  })
})
