import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { hashPassword, MAX_CONCURRENT_PASSWORD_HASHES, passwordHashing, verifyPassword } from '../../src/common/crypto.js'

describe('password hashing (D-10, D-13): at most two scrypt hashes at once', () => {
  it('should run two hashes and queue the rest, each still answering for its own password', async () => {
    assert.equal(MAX_CONCURRENT_PASSWORD_HASHES, 2)
    const stored = await hashPassword('correct horse')
    assert.deepEqual(passwordHashing, { running: 0, waiting: 0 })

    const checks = ['correct horse', 'wrong', 'correct horse', 'Correct horse', 'correct horse'].map((password) => verifyPassword(password, stored))
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
    const results = await Promise.allSettled([verifyPassword('x', unreadable), verifyPassword('x', unreadable), verifyPassword('x', unreadable)])
    assert.deepEqual(results.map((r) => r.status), ['rejected', 'rejected', 'rejected'])
    assert.deepEqual(passwordHashing, { running: 0, waiting: 0 })
    assert.match(await hashPassword('still works'), /^scrypt\$32768\$8\$1\$/)
  })
})
