import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { newId, newTimeOrderedId } from '../../src/common/ids.js'
import { newEventId } from '../../src/modules/notifications/outbox.repository.js'

const BASE32 = /^[0-9abcdefghjkmnpqrstvwxyz]{24}$/

describe('time-ordered ids (outbox event ids, D-60)', () => {
  it('should be the prefix and 24 base32 characters, the time in their first 48 bits', () => {
    const id = newTimeOrderedId('msg', 1_795_000_000_123)
    const [prefix, body] = id.split('_')
    assert.equal(prefix, 'msg')
    assert.match(body!, BASE32)
    // 48 bits of time are the first 9.6 characters: two ids of the same millisecond share 9 of them.
    assert.equal(newTimeOrderedId('msg', 1_795_000_000_123).slice(0, 13), id.slice(0, 13))
    assert.notEqual(newTimeOrderedId('msg', 1_795_000_000_123), id)
  })

  it('should sort as text in the order of their times, whatever the random part', () => {
    const times = [0, 1, 2, 255, 256, 1_000_000, 1_795_000_000_000, 1_795_000_000_001, 1_795_086_400_000, 2 ** 48 - 1]
    for (let trial = 0; trial < 50; trial++) {
      const ids = times.map((t) => newTimeOrderedId('msg', t))
      assert.deepEqual([...ids].sort(), ids)
    }
  })

  it('should clamp times outside 48 bits instead of throwing', () => {
    assert.match(newTimeOrderedId('msg', -5).slice(4), /^0{9}[0-3]/)
    assert.match(newTimeOrderedId('msg', 2 ** 50).slice(4), /^z{9}[w-z]/)
  })

  it('should be unique: 72 random bits after the time', () => {
    const seen = new Set(Array.from({ length: 20_000 }, () => newEventId(1_795_000_000_000)))
    assert.equal(seen.size, 20_000)
  })

  it('should leave the opaque ids of D-30 unordered: 120 random bits', () => {
    const ids = Array.from({ length: 200 }, () => newId('trx'))
    for (const id of ids) assert.match(id, /^trx_[0-9abcdefghjkmnpqrstvwxyz]{24}$/)
    assert.notDeepEqual([...ids].sort(), ids)
  })

  it('should stay unique and well formed across many refills of the random block (4 KiB, 273 ids each)', () => {
    const ids = Array.from({ length: 5_000 }, (_, i) => (i % 2 === 0 ? newId('trx') : newTimeOrderedId('msg', 1_795_000_000_000)))
    assert.equal(new Set(ids).size, ids.length)
    for (const id of ids) assert.match(id, /^(trx|msg)_[0-9abcdefghjkmnpqrstvwxyz]{24}$/)
    // The random parts do not repeat in blocks either: no two ids share their last 14 characters.
    assert.equal(new Set(ids.map((id) => id.slice(-14))).size, ids.length)
  })
})
