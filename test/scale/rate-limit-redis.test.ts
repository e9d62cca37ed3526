import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import net from 'node:net'
import { after, before, describe, it } from 'node:test'
import { Redis } from 'ioredis'
import { ManualClock, systemClock } from '../../src/common/clock.js'
import { createLogger } from '../../src/platform/logger.js'
import { RateLimiter } from '../../src/platform/rate-limit.js'
import { createRateLimitStores, RedisRateLimitStore } from '../../src/platform/rate-limit.redis.js'
import { basic, TestApp } from '../helpers/app.js'
import { problem } from '../helpers/assertions.js'
import { GENEROUS_MS, watch, within, withoutWaiting } from '../helpers/event-order.js'
import { redisReachable } from './support.js'

/**
 * Issue 10: rate-limit counters shared through Redis (D-14), and what happens when Redis cannot
 * answer: fail open to per-process counters, with one warning, never an error or a wait.
 */

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
const reachable = await redisReachable(REDIS_URL)
const SKIP_REDIS = !reachable && `Redis is not reachable at ${REDIS_URL} (set TEST_REDIS_URL): the shared-counter tests need it`

/** A store with its own key prefix (this test's keys only) and captured log lines. */
function store(url: string, prefix: string, logs: string[] = []): RedisRateLimitStore {
  return new RedisRateLimitStore({
    url,
    clock: systemClock,
    logger: createLogger('debug', { write: (line: string) => void logs.push(line) }),
    keyPrefix: prefix
  })
}

async function ready(s: RedisRateLimitStore): Promise<void> {
  const redis = (s as unknown as { redis: Redis }).redis
  if (redis.status === 'ready') return
  await new Promise<void>((resolve, reject) => {
    redis.once('ready', resolve)
    setTimeout(() => reject(new Error('Redis did not become ready')), GENEROUS_MS).unref()
  })
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The next `name` event of the connection (events.once would reject on the 'error' that may come first). */
const event = (redis: Redis, name: 'close' | 'connect') => new Promise<void>((resolve) => redis.once(name, () => resolve()))

/** A TCP proxy in front of Redis that the test can cut and restore, to play a Redis outage. */
class CuttableProxy {
  readonly server: net.Server
  private readonly sockets = new Set<net.Socket>()
  private refusing = false

  constructor(target: URL) {
    this.server = net.createServer((client) => {
      if (this.refusing) return client.destroy()
      const upstream = net.connect({ host: target.hostname, port: Number(target.port || 6379) })
      for (const socket of [client, upstream]) {
        this.sockets.add(socket)
        socket.on('close', () => this.sockets.delete(socket))
        socket.on('error', () => {})
      }
      client.pipe(upstream).pipe(client)
      client.on('close', () => upstream.destroy())
      upstream.on('close', () => client.destroy())
    })
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve))
    return `redis://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`
  }

  /** Keeps every connection open but carries nothing either way (a hung Redis, a lossy network). */
  hold(): void {
    for (const socket of this.sockets) {
      socket.unpipe()
      socket.pause()
    }
  }

  /** Carries the held connections' bytes again. */
  release(): void {
    const sockets = [...this.sockets]
    for (let i = 0; i + 1 < sockets.length; i += 2) {
      sockets[i]!.pipe(sockets[i + 1]!)
      sockets[i + 1]!.pipe(sockets[i]!)
    }
    for (const socket of sockets) socket.resume()
  }

  /** Drops every connection and refuses new ones. */
  cut(): void {
    this.refusing = true
    for (const socket of this.sockets) socket.destroy()
  }

  restore(): void {
    this.refusing = false
  }

  async close(): Promise<void> {
    this.cut()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }
}

describe('RedisRateLimitStore against Redis (issue 10, D-14)', { skip: SKIP_REDIS }, () => {
  const prefix = `so-test:${randomBytes(6).toString('hex')}:`
  const stores: RedisRateLimitStore[] = []
  let admin: Redis

  before(async () => {
    admin = new Redis(REDIS_URL)
  })

  after(async () => {
    await Promise.all(stores.map((s) => s.close()))
    const keys = await admin.keys(`${prefix}*`)
    if (keys.length > 0) await admin.del(...keys)
    admin.disconnect()
  })

  async function untilGone(key: string): Promise<void> {
    while ((await admin.exists(key)) === 1) await sleep(20)
  }

  function shared(logs?: string[]): RedisRateLimitStore {
    const s = store(REDIS_URL, prefix, logs)
    stores.push(s)
    return s
  }

  it('should share one count between two stores (two API processes): the limit holds once, not twice', async () => {
    const [one, two] = [shared(), shared()]
    await Promise.all([ready(one), ready(two)])
    const key = `signin-fail:${randomBytes(4).toString('hex')}@example.com`
    for (let i = 0; i < 10; i++) assert.equal((await (i % 2 === 0 ? one : two).hit(key, 10, 60_000)).allowed, true, `hit ${i + 1}`)
    for (const s of [one, two]) {
      const refused = await s.hit(key, 10, 60_000)
      assert.equal(refused.allowed, false)
      assert.ok(refused.retryAfterSeconds >= 59 && refused.retryAfterSeconds <= 60, String(refused.retryAfterSeconds))
    }
    assert.equal(one.fallbacks + two.fallbacks, 0, 'every decision came from Redis')
  })

  it('should count concurrent hits exactly (atomic INCR with its expiry)', async () => {
    const [one, two] = [shared(), shared()]
    await Promise.all([ready(one), ready(two)])
    const key = `signin-calls:${randomBytes(4).toString('hex')}`
    const decisions = await Promise.all(Array.from({ length: 100 }, (_unused, i) => (i % 2 === 0 ? one : two).hit(key, 60, 60_000)))
    assert.equal(decisions.filter((d) => d.allowed).length, 60)
    const [redisKey] = await admin.keys(`${prefix}signin-calls:*`)
    assert.ok(redisKey !== undefined)
    assert.equal(await admin.get(redisKey), '100')
    const ttl = await admin.pttl(redisKey)
    assert.ok(ttl > 50_000 && ttl <= 60_000, `the window's expiry is set with its first count (${ttl} ms)`)
  })

  it('should take back a refunded event for every process, never below zero (D-14 reservations)', async () => {
    const [one, two] = [shared(), shared()]
    await Promise.all([ready(one), ready(two)])
    const key = `signin-fail:${randomBytes(4).toString('hex')}@example.com`
    for (let i = 0; i < 10; i++) await one.hit(key, 10, 60_000)
    assert.equal((await two.exhausted(key, 10, 60_000)).allowed, false)
    await two.refund(key)
    assert.equal((await one.exhausted(key, 10, 60_000)).allowed, true)
    assert.equal((await one.hit(key, 10, 60_000)).allowed, true)
    assert.equal((await two.hit(key, 10, 60_000)).allowed, false)
    const fresh = `signin-fail:${randomBytes(4).toString('hex')}@example.com`
    await one.refund(fresh)
    assert.equal((await one.hit(fresh, 1, 60_000)).allowed, true, 'a refund of nothing leaves no negative count')
    assert.equal(one.fallbacks + two.fallbacks, 0)
  })

  it('should check without counting, like the in-memory limiter', async () => {
    const s = shared()
    await ready(s)
    const key = `basic-fail:${randomBytes(4).toString('hex')}`
    for (let i = 0; i < 3; i++) assert.equal((await s.exhausted(key, 2, 60_000)).allowed, true)
    assert.equal((await admin.keys(`${prefix}basic-fail:*`)).length, 0, 'a check alone writes nothing')
    await s.hit(key, 2, 60_000)
    assert.equal((await s.exhausted(key, 2, 60_000)).allowed, true)
    await s.hit(key, 2, 60_000)
    const decision = await s.exhausted(key, 2, 60_000)
    assert.equal(decision.allowed, false)
    assert.ok(decision.retryAfterSeconds >= 59 && decision.retryAfterSeconds <= 60)
  })

  it('should start a new window when the old one expires', async () => {
    const s = shared()
    await ready(s)
    const key = `signin-fail:${randomBytes(4).toString('hex')}`
    const stored = `${prefix}signin-fail:${createHash('sha256').update(key).digest('base64url')}`
    await s.hit(key, 1, 300)
    const refused = await s.hit(key, 1, 300)
    assert.deepEqual(refused, { allowed: false, retryAfterSeconds: 1 })
    assert.equal(await admin.exists(stored), 1)
    // Once Redis has ended the window (it drops the key), the next hit starts a new one.
    await within(GENEROUS_MS, untilGone(stored), 'the end of the window')
    assert.equal((await s.hit(key, 1, 300)).allowed, true)
  })

  it('should keep e-mail and client addresses out of Redis: the key after the limit name is a hash', async () => {
    const s = shared()
    await ready(s)
    await s.hit('signin-fail:someone.private@example.com', 10, 60_000)
    await s.hit('basic-fail:203.0.113.7', 10, 60_000)
    const keys = await admin.keys(`${prefix}*`)
    assert.ok(keys.length > 0)
    for (const key of keys) {
      assert.match(key, new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[a-z-]+:[A-Za-z0-9_-]{43}$`))
      assert.ok(!key.includes('example.com') && !key.includes('203.0.113.7'))
    }
  })

  it('should fail open to per-process counts while Redis is cut off, warn once, and share again when it is back', async () => {
    const proxy = new CuttableProxy(new URL(REDIS_URL))
    const url = await proxy.listen()
    const logs: string[] = []
    const s = store(url, prefix, logs)
    stores.push(s)
    try {
      await ready(s)
      const key = `signin-fail:${randomBytes(4).toString('hex')}`
      assert.equal((await s.hit(key, 3, 60_000)).allowed, true)
      assert.equal(s.fallbacks, 0)

      proxy.cut()
      await within(GENEROUS_MS, event(s.redis, 'close'), 'the cut connection')
      // Redis gone: every answer comes at once from this process's own counters, which still limit.
      const decisions = await withoutWaiting(async () => {
        const made = []
        for (let i = 0; i < 5; i++) made.push(await s.hit(key, 3, 60_000))
        return made
      })
      assert.deepEqual(
        decisions.map((d) => d.allowed),
        [true, true, true, false, false]
      )
      assert.equal(s.fallbacks, 5)
      const warnings = logs.filter((line) => line.includes('fall back to per-process counting'))
      assert.equal(warnings.length, 1, 'one warning per outage, not one per request')
      assert.equal((JSON.parse(warnings[0]!) as { level: number }).level, 40)

      proxy.restore()
      await ready(s)
      assert.ok(logs.some((line) => line.includes('Redis answers again')))
      // Shared again: the count in Redis (1 from before the cut) goes on.
      assert.equal((await s.hit(key, 3, 60_000)).allowed, true)
      assert.equal((await s.hit(key, 3, 60_000)).allowed, true)
      assert.equal((await s.hit(key, 3, 60_000)).allowed, false)
      assert.equal(s.fallbacks, 5)
    } finally {
      await proxy.close()
    }
  })
})

describe('RedisRateLimitStore with a Redis that stops answering (issue 10)', { skip: SKIP_REDIS }, () => {
  it('should wait for a hung Redis once, then answer from per-process counts at once, and share again when it answers', async () => {
    const proxy = new CuttableProxy(new URL(REDIS_URL))
    const url = await proxy.listen()
    const logs: string[] = []
    const s = store(url, `so-test:${randomBytes(4).toString('hex')}:`, logs)
    try {
      await ready(s)
      const key = `signin-fail:${randomBytes(4).toString('hex')}`
      assert.equal((await s.hit(key, 3, 60_000)).allowed, true)

      proxy.hold()
      // The first command waits for its timeout and fails over; the rest do not wait: they are
      // decided while a command sent after the first one's failure still hangs unanswered.
      assert.equal((await s.hit(key, 3, 60_000)).allowed, true)
      const hanging = watch(s.redis.ping())
      const decisions = []
      for (let i = 0; i < 5; i++) decisions.push(await s.hit(key, 3, 60_000))
      assert.equal(hanging.settled(), false, 'five decisions made while a command to the hung Redis is still unanswered')
      await assert.rejects(hanging.promise, /timed out/)
      assert.deepEqual(
        decisions.map((d) => d.allowed),
        [true, true, false, false, false]
      )
      assert.equal(logs.filter((line) => line.includes('fall back to per-process counting')).length, 1)

      proxy.release()
      // A request after the probe interval sends one PING; its answer ends the fallback, and says so.
      const deadline = Date.now() + GENEROUS_MS
      while (!logs.some((line) => line.includes('Redis answers again')) && Date.now() < deadline) {
        await s.hit(`signin-calls:${randomBytes(4).toString('hex')}`, 100, 60_000)
        await sleep(100)
      }
      assert.ok(
        logs.some((line) => line.includes('Redis answers again')),
        'the recovery is logged'
      )
      const fallbacks = s.fallbacks
      // Shared again: Redis still holds the count of 1 from before the hang.
      assert.equal((await s.hit(key, 3, 60_000)).allowed, true)
      assert.equal(s.fallbacks, fallbacks)
    } finally {
      await s.close()
      await proxy.close()
    }
  })
})

describe('RedisRateLimitStore without a Redis (issue 10)', () => {
  it('should fail open to per-process counting when nothing listens, answering at once', async () => {
    const logs: string[] = []
    const s = store('redis://127.0.0.1:1', 'so-test:', logs)
    try {
      const decisions = await withoutWaiting(async () => {
        const made = []
        for (let i = 0; i < 4; i++) made.push(await s.hit('signin-fail:a@example.com', 3, 60_000))
        return made
      })
      assert.deepEqual(
        decisions.map((d) => d.allowed),
        [true, true, true, false]
      )
      assert.equal((await s.exhausted('signin-fail:a@example.com', 3, 60_000)).allowed, false)
      assert.equal(s.fallbacks, 5)
    } finally {
      await s.close()
    }
  })

  it('should fail open while Redis accepts connections but never answers', async () => {
    const silent = net.createServer(() => {})
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const s = store(`redis://127.0.0.1:${(silent.address() as net.AddressInfo).port}`, 'so-test:')
    try {
      // Connected, but its first command (the ready check) is never answered.
      await within(GENEROUS_MS, event(s.redis, 'connect'), 'the connection to the silent server')
      const decisions = await withoutWaiting(async () => [
        await s.hit('signin-calls:198.51.100.1', 1, 60_000),
        await s.hit('signin-calls:198.51.100.1', 1, 60_000)
      ])
      assert.deepEqual(
        decisions.map((d) => d.allowed),
        [true, false]
      )
    } finally {
      await s.close()
      silent.close()
    }
  })

  it('should count in memory when REDIS_URL is not set, sign-in and tracking in stores of their own', () => {
    const stores = createRateLimitStores({ redisUrl: null, clock: new ManualClock(), logger: createLogger('silent'), maxKeys: 10 })
    assert.ok(stores.signIn instanceof RateLimiter && stores.tracking instanceof RateLimiter)
    assert.notEqual(stores.signIn, stores.tracking)
    assert.equal(stores.signIn.maxKeys, 10)
  })
})

describe('the API with an unreachable REDIS_URL (issue 10)', () => {
  const t = new TestApp('sqlite', { REDIS_URL: 'redis://127.0.0.1:1' })
  before(() => t.start())
  after(() => t.stop())

  it('should stay ready: /readyz depends on the database only (D-71)', async () => {
    const ready = await t.post('/readyz', undefined, { method: 'GET', auth: null })
    assert.equal(ready.statusCode, 200, ready.body)
    assert.deepEqual(ready.json(), { status: 'ready' })
  })

  it('should still limit failed sign-ins, per process, and log the fallback once (D-14)', async () => {
    const email = `guesser.${randomBytes(3).toString('hex')}@example.com`
    for (let i = 1; i <= 10; i++)
      problem(await t.post('/v1/customer/signin', { email, password: 'wrong password' }, { auth: t.auth.app }), 'invalid_login')
    problem(await t.post('/v1/customer/signin', { email, password: 'wrong password' }, { auth: t.auth.app }), 'rate_limited')
    problem(await t.post('/v1/service/stats', undefined, { auth: basic(email, 'wrong password') }), 'rate_limited')
    assert.equal((await t.post('/v1/service/stats')).statusCode, 200, 'API keys are not affected')
    assert.equal(t.logs.filter((line) => line.includes('fall back to per-process counting')).length, 1)
  })
})
