import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ConfigError, loadConfig } from '../../src/config.js'

/** Issue 10's variables (D-01, D-02): defaults, accepted values, one clear line for a bad one. */

const PG = 'postgres://postgres@127.0.0.1:5432/service_ordering'

function errorOf(env: Record<string, string>): string {
  try {
    loadConfig(env)
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`)
    return error.message
  }
  assert.fail(`expected ${JSON.stringify(env)} to be refused`)
}

describe('scale-out configuration (issue 10)', () => {
  it('should default to one process, per-process rate limits, a 3 s pool wait and 1000 waiting callers', () => {
    const config = loadConfig({})
    assert.deepEqual(
      {
        workers: config.workers,
        redisUrl: config.redisUrl,
        databasePoolTimeoutMs: config.databasePoolTimeoutMs,
        databasePoolQueueMax: config.databasePoolQueueMax
      },
      { workers: 1, redisUrl: null, databasePoolTimeoutMs: 3000, databasePoolQueueMax: 1000 }
    )
  })

  it('should accept WORKERS up to 64 on PostgreSQL', () => {
    assert.equal(loadConfig({ DATABASE_URL: PG, WORKERS: '4' }).workers, 4)
    assert.equal(loadConfig({ DATABASE_URL: PG, WORKERS: '64' }).workers, 64)
    assert.equal(loadConfig({ WORKERS: '1' }).workers, 1, 'one process is fine on SQLite')
  })

  it('should refuse WORKERS out of range, and above 1 on SQLite', () => {
    assert.equal(errorOf({ DATABASE_URL: PG, WORKERS: '0' }), 'WORKERS (or serve --workers) must be a whole number from 1 to 64 (got "0")')
    assert.equal(
      errorOf({ DATABASE_URL: PG, WORKERS: '65' }),
      'WORKERS (or serve --workers) must be a whole number from 1 to 64 (got "65")'
    )
    assert.equal(
      errorOf({ WORKERS: '2' }),
      'WORKERS (or serve --workers) must be 1 with SQLite (got 2); several API processes need a postgres:// DATABASE_URL'
    )
    assert.match(errorOf({ DATABASE_URL: 'sqlite::memory:', WORKERS: '3' }), /must be 1 with SQLite/)
  })

  it('should accept redis:// and rediss:// in REDIS_URL', () => {
    assert.equal(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).redisUrl, 'redis://127.0.0.1:6379')
    assert.equal(loadConfig({ REDIS_URL: ' rediss://user:pw@cache.internal:6380/2 ' }).redisUrl, 'rediss://user:pw@cache.internal:6380/2')
    assert.equal(loadConfig({ REDIS_URL: '' }).redisUrl, null, 'empty is unset (compose passes ${REDIS_URL:-})')
  })

  it('should keep 100,000 rate-limit counters per store by default, and read RATE_LIMIT_MAX_KEYS (D-14)', () => {
    assert.equal(loadConfig({}).rateLimitMaxKeys, 100_000)
    assert.equal(loadConfig({ RATE_LIMIT_MAX_KEYS: '50' }).rateLimitMaxKeys, 50)
    assert.equal(errorOf({ RATE_LIMIT_MAX_KEYS: '9' }), 'RATE_LIMIT_MAX_KEYS must be a whole number from 10 to 10000000 (got "9")')
  })

  it('should refuse another scheme in REDIS_URL without echoing its password', () => {
    const message = errorOf({ REDIS_URL: 'http://user:hunter2@cache:6379' })
    assert.equal(message, 'REDIS_URL must be a URL starting with redis: or rediss: (got "http://user:***@cache:6379")')
    assert.equal(errorOf({ REDIS_URL: 'cache:6379' }), 'REDIS_URL must be a URL starting with redis: or rediss: (got "cache:6379")')
  })

  it('should read and bound the pool limits', () => {
    const config = loadConfig({ DATABASE_POOL_TIMEOUT_MS: '250', DATABASE_POOL_QUEUE_MAX: '0' })
    assert.deepEqual([config.databasePoolTimeoutMs, config.databasePoolQueueMax], [250, 0])
    assert.equal(errorOf({ DATABASE_POOL_TIMEOUT_MS: '0' }), 'DATABASE_POOL_TIMEOUT_MS must be a whole number from 1 to 600000 (got "0")')
    assert.equal(errorOf({ DATABASE_POOL_QUEUE_MAX: '-1' }), 'DATABASE_POOL_QUEUE_MAX must be a whole number from 0 to 100000 (got "-1")')
  })
})
