import assert from 'node:assert/strict'
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import net from 'node:net'
import { after, before, describe, it } from 'node:test'
import { Redis } from 'ioredis'
import { systemClock } from '../../src/common/clock.js'
import { clientAddressKey } from '../../src/platform/client-address.js'
import { createLogger } from '../../src/platform/logger.js'
import { RedisRateLimitStore } from '../../src/platform/rate-limit.redis.js'
import { TestApp } from '../helpers/app.js'
import { problem } from '../helpers/assertions.js'
import { GENEROUS_MS } from '../helpers/event-order.js'
import { redisReachable } from './support.js'

/**
 * Issue 25, D-14 with REDIS_URL: counters are kept by client /64, Redis is checked for an eviction
 * policy that could drop a counter before its window ends, and while Redis cannot answer the
 * sign-in and tracking counters fall back to per-process stores of their own.
 */

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
const SKIP_REDIS = !(await redisReachable(REDIS_URL)) && `Redis is not reachable at ${REDIS_URL} (set TEST_REDIS_URL)`
const SKIP_SERVER =
  spawnSync('redis-server', ['--version']).status !== 0 && 'redis-server is not installed: no Redis of our own to configure'

/** Resolves with the first captured log line containing `text`, polling. */
async function logged(logs: string[], text: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + GENEROUS_MS
  for (;;) {
    const line = logs.find((l) => l.includes(text))
    if (line !== undefined) return JSON.parse(line) as Record<string, unknown>
    if (Date.now() > deadline) throw new Error(`no log line with "${text}" in ${JSON.stringify(logs)}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

function store(url: string, logs: string[], maxKeys?: number): RedisRateLimitStore {
  const logger = createLogger('debug', { write: (line: string) => void logs.push(line) })
  return new RedisRateLimitStore({ url, clock: systemClock, logger, keyPrefix: `so-test:${randomBytes(4).toString('hex')}:`, maxKeys })
}

describe('Redis eviction policy (issue 25, D-14)', () => {
  let server: ChildProcess | undefined

  after(() => {
    server?.kill()
  })

  it('should say nothing against a Redis that never evicts (noeviction)', { skip: SKIP_REDIS }, async () => {
    const logs: string[] = []
    const s = store(REDIS_URL, logs)
    try {
      assert.deepEqual((await logged(logs, 'keeps every rate-limit counter')).maxmemory_policy, 'noeviction')
      assert.equal(logs.filter((line) => line.includes('may evict')).length, 0)
    } finally {
      await s.close()
    }
  })

  it('should warn once that a Redis with an evicting maxmemory-policy may drop counters before their window ends', {
    skip: SKIP_SERVER
  }, async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as net.AddressInfo
        probe.close(() => resolve(free))
      })
    })
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--maxmemory',
      '8mb',
      '--maxmemory-policy',
      'allkeys-lru'
    ]
    server = spawn('redis-server', args, { stdio: 'ignore' })
    const deadline = Date.now() + GENEROUS_MS
    while (!(await redisReachable(`redis://127.0.0.1:${port}`))) {
      assert.ok(Date.now() < deadline, 'our own redis-server did not start')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const logs: string[] = []
    const s = store(`redis://127.0.0.1:${port}`, logs)
    try {
      const warning = await logged(logs, 'may evict rate-limit counters before their window ends')
      assert.equal(warning.level, 40)
      assert.equal(warning.maxmemory_policy, 'allkeys-lru')
      assert.equal((await s.hit('signin-fail:a@example.com', 10, 60_000)).allowed, true, 'Redis is still used')
      assert.equal(s.fallbacks, 0)
      assert.equal(logs.filter((line) => line.includes('may evict')).length, 1)
    } finally {
      await s.close()
    }
  })
})

describe('the stores alongside one Redis connection (issue 25, D-14)', () => {
  it('should keep each fallback on its own bound: a tracking flood leaves the sign-in counters alone', async () => {
    const logs: string[] = []
    const signIn = store('redis://127.0.0.1:1', logs, 10)
    try {
      const tracking = signIn.alongside()
      for (let i = 0; i < 9; i++) assert.equal((await signIn.hit('signin-fail:victim@example.com', 10, 60_000)).allowed, true)
      for (let i = 0; i < 100; i++) assert.equal((await tracking.hit(`tracking-calls:198.18.0.${i}`, 60, 60_000)).allowed, true)
      assert.equal((await signIn.hit('signin-fail:victim@example.com', 10, 60_000)).allowed, true)
      assert.equal((await signIn.hit('signin-fail:victim@example.com', 10, 60_000)).allowed, false, 'the nine were kept')
      await logged(logs, 'fall back to per-process counting')
      assert.equal(logs.filter((line) => line.includes('fall back to per-process counting')).length, 1, 'one connection, one warning')
    } finally {
      // One connection: closing either store closes it for both.
      await signIn.close()
    }
  })
})

describe('the API with a shared Redis counts clients by /64 (issue 25, D-14)', { skip: SKIP_REDIS }, () => {
  const t = new TestApp('sqlite', { REDIS_URL, TRUST_PROXY: 'on', RATE_LIMIT_MAX_KEYS: '10' })
  let admin: Redis
  // A /64 of this run only: the counters live in the shared Redis for their window.
  const net64 = () => `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`
  /** Where the app keeps a counter in Redis (rate-limit.redis.ts: the limit's name, then a hash). */
  const redisKey = (limitName: string, address: string) =>
    `service-ordering:rate:${limitName}:${createHash('sha256')
      .update(`${limitName}:${clientAddressKey(address)}`)
      .digest('base64url')}`
  const status = (address: string) =>
    t.post(`/track/${'A'.repeat(43)}/status`, undefined, { auth: null, headers: { 'x-forwarded-for': address } })

  before(async () => {
    admin = new Redis(REDIS_URL)
    await t.start()
    // Until its connection is ready the app counts in memory: wait for a counter to reach Redis.
    const probe = `${net64()}::1`
    const deadline = Date.now() + GENEROUS_MS
    while ((await admin.exists(redisKey('tracking-calls', probe))) === 0) {
      assert.ok(Date.now() < deadline, 'the app never counted in Redis')
      await status(probe)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  })
  after(async () => {
    await t.stop()
    admin.disconnect()
  })

  it('should refuse the rest of a /64 once sign-in and reset calls from it reach 60, one counter expiring with its minute', async () => {
    const prefix = net64()
    const from = (host: string) => ({ headers: { 'x-forwarded-for': `${prefix}::${host}` } })
    for (let i = 1; i <= 60; i++) {
      const path = i % 2 === 0 ? '/v1/customer/signin' : '/v1/customer/reset_password'
      const answer = await t.post(path, { email: 'not-an-address' }, from(i.toString(16)))
      assert.equal(answer.statusCode, 400, answer.body)
    }
    problem(await t.post('/v1/customer/signin', { email: 'not-an-address' }, from('12d')), 'rate_limited')
    const last = { headers: { 'x-forwarded-for': `${prefix}:ffff:ffff:ffff:ffff` } }
    problem(await t.post('/v1/customer/reset_password', { email: 'not-an-address' }, last), 'rate_limited')
    const key = redisKey('signin-calls', `${prefix}::1`)
    assert.equal(await admin.get(key), '62')
    const ttl = await admin.pttl(key)
    assert.ok(ttl > 0 && ttl <= 60_000, `${ttl} ms`)
    assert.equal(
      (await t.post('/v1/customer/signin', { email: 'not-an-address' }, { headers: { 'x-forwarded-for': `${net64()}::1` } })).statusCode,
      400
    )
  })

  it('should refuse the rest of a /64 once tracking status reads from it reach 60', async () => {
    const prefix = net64()
    for (let i = 1; i <= 60; i++) problem(await status(`${prefix}::${i.toString(16)}`), 'transaction_not_found')
    problem(await status(`${prefix}::12d`), 'rate_limited')
    assert.equal(await admin.get(redisKey('tracking-calls', `${prefix}::1`)), '61')
  })
})
