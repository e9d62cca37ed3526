import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseReport, perfComparison, type PerfSummary } from '../../bench/perf.js'

// `perf report --stdio -q -n -t ';'` as perf 6 prints it, by object and by object and symbol.
const BY_OBJECT = [' 42.85% ; 2530       ;node               ', ' 24.05% ; 1420       ;[kernel.kallsyms]  ', ' 14.92% ; 881        ;[JIT] tid 6580     ', ''].join('\n')
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

  it('should compare get-transaction\'s CPU per request with the reference\'s when both were sampled', () => {
    const summary = (cpuMicrosPerRequest: number): PerfSummary => ({ file: 'f', samples: 1, requests: 1, cpuMicrosPerRequest, byObject: [], top: [] })
    assert.equal(
      perfComparison([
        { scenario: 'reference-transaction', summary: summary(100) },
        { scenario: 'get-transaction', summary: summary(125.4) }
      ]),
      'CPU per request (perf): get-transaction 125 µs, the hand-prepared reference 100 µs: 25 µs more (1.25×)'
    )
    assert.equal(perfComparison([{ scenario: 'get-transaction', summary: summary(125) }]), null)
    assert.equal(perfComparison([{ scenario: 'get-transaction', summary: summary(90) }, { scenario: 'reference-transaction', summary: summary(100) }])?.endsWith('10 µs less (0.90×)'), true)
  })
})
