import assert from 'node:assert/strict'
import { randomBytes, scryptSync } from 'node:crypto'
import { describe, it } from 'node:test'
import { hashPassword, MAX_CONCURRENT_PASSWORD_HASHES, passwordHashing, verifyPassword } from '../../src/common/crypto.js'

describe('password hashing (D-10, D-13): at most two scrypt hashes at once', () => {
  it('should run two hashes and queue the rest, each still answering for its own password', async () => {
    assert.equal(MAX_CONCURRENT_PASSWORD_HASHES, 2)
    const stored = await hashPassword('correct horse')
    assert.deepEqual(passwordHashing, { running: 0, waiting: 0 })

    const checks = ['correct horse', 'wrong', 'correct horse', 'Correct horse', 'correct horse'].map((password) =>
      verifyPassword(password, stored)
    )
    // Each call takes its slot or its place in the queue before its first await.
    assert.deepEqual(passwordHashing, { running: 2, waiting: 3 })
    let mostRunning = 0
    const watch = setInterval(() => (mostRunning = Math.max(mostRunning, passwordHashing.running)), 1)
    try {
      assert.deepEqual(await Promise.all(checks), [true, false, true, false, true])
    } finally {
      clearInterval(watch)
    }
    assert.equal(mostRunning, 2)
    assert.deepEqual(passwordHashing, { running: 0, waiting: 0 })
  })

  it('should give the slot back when a hash fails', async () => {
    // N must be a power of two: scrypt refuses this stored hash.
    const unreadable = 'scrypt$3$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'
    const results = await Promise.allSettled([
      verifyPassword('x', unreadable),
      verifyPassword('x', unreadable),
      verifyPassword('x', unreadable)
    ])
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected', 'rejected']
    )
    assert.deepEqual(passwordHashing, { running: 0, waiting: 0 })
    assert.match(await hashPassword('still works'), /^scrypt\$32768\$8\$1\$/)
  })
})

describe('passwords compared in Unicode NFKC (NIST SP 800-63B 5.1.1.2)', () => {
  const composed = 'Zoë wäscht 12'.normalize('NFC')
  const decomposed = composed.normalize('NFD')

  it('should take the same visible password in either form, and full-width forms as their plain letters', async () => {
    assert.notEqual(composed, decomposed)
    const stored = await hashPassword(decomposed)
    assert.equal(await verifyPassword(composed, stored), true)
    assert.equal(await verifyPassword(decomposed, stored), true)
    assert.equal(await verifyPassword('Zoe wascht 12', stored), false, 'accents still count')
    assert.equal(await verifyPassword('ｐａｓｓ１２３４', await hashPassword('pass1234')), true)
  })

  it('should still take a password hashed as sent, before passwords were normalised', async () => {
    // The stored form of that time: scrypt of the text exactly as it was sent.
    const salt = randomBytes(16)
    const key = scryptSync(decomposed, salt, 32, { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 })
    const legacy = ['scrypt', 32768, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$')
    assert.equal(await verifyPassword(decomposed, legacy), true)
    assert.equal(await verifyPassword(composed, legacy), false, 'the other form was never what was hashed')
  })
})
