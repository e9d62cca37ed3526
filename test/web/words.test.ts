import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { duration, epochSeconds, plural } from '../../web/src/console/words.js'

// The console's counts and waiting times, as staff read them on the board.
describe('console words', () => {
  it('should never say "1 orders"', () => {
    assert.equal(plural(0, 'open order'), '0 open orders')
    assert.equal(plural(1, 'open order'), '1 open order')
    assert.equal(plural(2, 'order'), '2 orders')
    assert.equal(plural(1, 'match', 'matches'), '1 match')
    assert.equal(plural(3, 'match', 'matches'), '3 matches')
  })

  it('should write how late an order is in hours and minutes', () => {
    assert.equal(duration(0.2), '1 min')
    assert.equal(duration(45), '45 min')
    assert.equal(duration(60), '1 h')
    assert.equal(duration(80), '1 h 20 min')
    assert.equal(duration(24 * 60), '1 d')
    assert.equal(duration(27 * 60 + 10), '1 d 3 h')
  })

  it('should read API instants as epoch seconds', () => {
    assert.equal(epochSeconds('2026-11-27T14:00:00.000Z'), 1_795_788_000)
    assert.equal(epochSeconds('1795788000'), 1_795_788_000)
    assert.equal(epochSeconds(1_795_788_000), 1_795_788_000)
    assert.equal(epochSeconds('not a time'), undefined)
  })
})
