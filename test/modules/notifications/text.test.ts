import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, afterEach, before, beforeEach, it } from 'node:test'
import { ManualClock } from '../../../src/common/clock.js'
import { outboxOperations } from '../../../src/modules/notifications/outbox.operations.js'
import { describeEachDialect } from '../../helpers/app.js'
import { Dispatchers, metricValue } from './support/dispatchers.js'
import { enqueue, insertOrderFixture, outboxRows, resetOutbox, stepMessages } from './support/outbox.js'
import { type HttpReceiver, startHttpReceiver } from './support/receivers.js'

describeEachDialect('outbox text channel (D-60)', (t) => {
  const dispatchers = new Dispatchers(t)
  let gateway: HttpReceiver

  before(async () => {
    gateway = await startHttpReceiver()
  })
  after(() => gateway.close())
  beforeEach(async () => {
    gateway.requests.length = 0
    gateway.answer = () => 200
    await resetOutbox(t)
  })
  afterEach(() => dispatchers.stopAll())

  it('should POST {to, body} to the SMS gateway with the event id as Idempotency-Key', async () => {
    const order = await insertOrderFixture(t, { first_name: 'Sam', phone: '15551230000' })
    await enqueue(t, stepMessages(order, 2, ['text']))
    const dispatcher = dispatchers.create({ settings: { smsWebhookUrl: gateway.url } })
    assert.equal(await dispatcher.runOnce(), 1)

    assert.equal(gateway.requests.length, 1)
    const [request] = gateway.requests
    const [row] = await outboxRows(t)
    assert.equal(request!.headers['content-type'], 'application/json')
    assert.equal(request!.headers['idempotency-key'], row!.event_id)
    assert.deepEqual(JSON.parse(request!.body), {
      to: '15551230000',
      body: `Hi Sam, your ${order.service.name} order ${order.code} is at step 2 of 3 (67%): Washing`
    })
    assert.equal(row!.status, 'delivered')
  })

  it('should send the credentials of an SMS_WEBHOOK_URL with user:password@ as HTTP Basic, never in the URL', async () => {
    const order = await insertOrderFixture(t, { phone: '15551230001' })
    await enqueue(t, stepMessages(order, 1, ['text']))
    const url = new URL(gateway.url)
    const withCredentials = `http://sms%20user:p%40ss:word@${url.host}/send?account=42`
    const dispatcher = dispatchers.create({ settings: { smsWebhookUrl: withCredentials } })
    assert.equal(await dispatcher.runOnce(), 1)
    const [row] = await outboxRows(t)
    assert.equal(row!.status, 'delivered', row!.last_error ?? '')
    const [request] = gateway.requests
    assert.equal(request!.url, '/send?account=42')
    assert.equal(request!.headers.authorization, `Basic ${Buffer.from('sms user:p@ss:word').toString('base64')}`)
  })

  it('should write one file per text under DATA_DIR/sms when SMS_WEBHOOK_URL is unset', async () => {
    const order = await insertOrderFixture(t, { phone: '5550001111' })
    await enqueue(t, stepMessages(order, 1, ['text']))
    const dir = dispatchers.dataDir()
    const dispatcher = dispatchers.create({ settings: { dataDir: dir } })
    assert.equal(await dispatcher.runOnce(), 1)
    const [row] = await outboxRows(t)
    assert.equal(row!.status, 'delivered')
    assert.deepEqual(fs.readdirSync(path.join(dir, 'sms')), [`${row!.event_id}.json`])
    const written = JSON.parse(fs.readFileSync(path.join(dir, 'sms', `${row!.event_id}.json`), 'utf8'))
    assert.deepEqual(written, {
      to: '5550001111',
      body: `Hi Jane, your ${order.service.name} order ${order.code} is at step 1 of 3 (33%): Picked up`,
      event_id: row!.event_id
    })
  })

  it('should skip a text to a customer without a phone and record the reason', async () => {
    const order = await insertOrderFixture(t, { phone: '' })
    await enqueue(t, stepMessages(order, 1, ['text']))
    const skippedBefore = await metricValue(t, 'outbox_skipped_total{channel="text"}')
    const dispatcher = dispatchers.create({ settings: { smsWebhookUrl: gateway.url } })
    assert.equal(await dispatcher.runOnce(), 1)
    const [row] = await outboxRows(t)
    assert.equal(row!.status, 'skipped')
    assert.equal(row!.last_error, 'the customer has no phone number')
    assert.equal(row!.attempts, 0)
    assert.equal(gateway.requests.length, 0)
    assert.equal(await metricValue(t, 'outbox_skipped_total{channel="text"}'), skippedBefore + 1)
  })

  it("should wait at least as long as a gateway's Retry-After asks (seconds or a date), at most the longest backoff", async () => {
    const clock = new ManualClock(t.clock.now())
    const orders = [await insertOrderFixture(t), await insertOrderFixture(t), await insertOrderFixture(t)]
    for (const order of orders) await enqueue(t, stepMessages(order, 1, ['text']), clock.now())
    const asked = [
      { status: 429, headers: { 'retry-after': '120' } },
      { status: 503, headers: { 'retry-after': new Date(clock.now() + 300_000).toUTCString() } },
      { status: 429, headers: { 'retry-after': '86400' } }
    ]
    gateway.answer = (_request, index) => asked[index]!
    const dispatcher = dispatchers.create({ clock, settings: { smsWebhookUrl: gateway.url } })
    assert.equal(await dispatcher.runOnce(), 3)
    const rows = await outboxRows(t)
    // The three requests reach the gateway side by side, in any order: compare sorted.
    assert.deepEqual(rows.map((row) => [row.status, row.attempts, row.last_error]).sort(), [
      ['pending', 1, 'the SMS gateway answered HTTP 429'],
      ['pending', 1, 'the SMS gateway answered HTTP 429'],
      ['pending', 1, 'the SMS gateway answered HTTP 503']
    ])
    const byWait = rows.map((row) => row.next_attempt_at - clock.now()).sort((a, b) => a - b)
    assert.equal(byWait[0], 120_000)
    // An HTTP date has whole seconds: the wait is up to a second shorter than asked.
    assert.ok(byWait[1]! > 299_000 && byWait[1]! <= 300_000, String(byWait[1]))
    assert.equal(byWait[2], 3_600_000, 'a day is cut to the longest backoff, one hour')
  })

  it('should retry a failing gateway with growing delays, then dead-letter the text after the 10th failure', async () => {
    // A clock that moves only when told: each retry happens exactly when it is due, never before.
    const clock = new ManualClock(t.clock.now())
    const arrivals: number[] = []
    gateway.answer = () => {
      arrivals.push(clock.now())
      return 503
    }
    const order = await insertOrderFixture(t)
    await enqueue(t, stepMessages(order, 1, ['text']), clock.now())
    const failuresBefore = await metricValue(t, 'outbox_failures_total{channel="text"}')
    const deadBefore = await metricValue(t, 'outbox_dead_letters_total{channel="text"}')
    const dispatcher = dispatchers.create({ settings: { smsWebhookUrl: gateway.url }, clock })

    let previousDelay = 0
    for (let attempt = 1; attempt <= 10; attempt++) {
      assert.equal(await dispatcher.runOnce(), 1, `attempt ${attempt} is made`)
      assert.equal(gateway.requests.length, attempt)
      const [row] = await outboxRows(t)
      assert.equal(row!.attempts, attempt)
      assert.equal(row!.last_error, 'the SMS gateway answered HTTP 503')
      assert.equal(row!.claimed_by, null)
      if (attempt === 10) {
        assert.equal(row!.status, 'dead')
        break
      }
      assert.equal(row!.status, 'pending')
      // D-60: exponential from 1 s with jitter in the upper half of each ceiling, so always growing.
      const delay = row!.next_attempt_at - row!.updated_at
      const ceiling = 1000 * 2 ** (attempt - 1)
      assert.ok(delay >= ceiling / 2 && delay < ceiling, `delay ${delay} after failure ${attempt}`)
      assert.ok(delay > previousDelay, `delay ${delay} grows past ${previousDelay}`)
      previousDelay = delay
      // Not a millisecond early.
      clock.set(row!.next_attempt_at - 1)
      assert.equal(await dispatcher.runOnce(), 0, `attempt ${attempt + 1} waits for its time`)
      clock.set(row!.next_attempt_at)
    }
    // The receiver saw the same: gaps between attempts grow.
    const gaps = arrivals.slice(1).map((at, i) => at - arrivals[i]!)
    assert.equal(gaps.length, 9)
    for (let i = 1; i < gaps.length; i++) assert.ok(gaps[i]! > gaps[i - 1]!, `gap ${gaps[i]} after ${gaps[i - 1]}`)

    // A dead row stays dead.
    clock.advance(24 * 3600_000)
    assert.equal(await dispatcher.runOnce(), 0)
    assert.equal(gateway.requests.length, 10)
    assert.equal(await metricValue(t, 'outbox_failures_total{channel="text"}'), failuresBefore + 10)
    assert.equal(await metricValue(t, 'outbox_dead_letters_total{channel="text"}'), deadBefore + 1)
    assert.equal(await metricValue(t, 'outbox_backlog{channel="text",status="dead"}'), 1)
    assert.ok(dispatchers.logs.some((line) => line.includes('outbox message is dead')))
  })

  it('should send a dead text again after `outbox retry`, with a fresh set of attempts', async () => {
    const clock = new ManualClock(t.clock.now())
    gateway.answer = () => 500
    const order = await insertOrderFixture(t)
    await enqueue(t, stepMessages(order, 1, ['text']), clock.now())
    const dispatcher = dispatchers.create({
      settings: { smsWebhookUrl: gateway.url },
      clock,
      options: { retry: { baseDelayMs: 10, maxDelayMs: 10, maxAttempts: 2 } }
    })
    assert.equal(await dispatcher.runOnce(), 1)
    clock.advance(10)
    assert.equal(await dispatcher.runOnce(), 1)
    const [dead] = await outboxRows(t)
    assert.equal(dead!.status, 'dead')

    const operations = outboxOperations(t.database, clock)
    clock.advance(5_000)
    const outcome = await operations.retry(dead!.event_id)
    assert.equal(outcome.done, true)
    const [revived] = await outboxRows(t)
    assert.equal(revived!.status, 'pending')
    assert.equal(revived!.attempts, 0)
    assert.equal(revived!.next_attempt_at, clock.now())
    assert.equal(revived!.last_error, 'the SMS gateway answered HTTP 500')

    gateway.answer = () => 200
    assert.equal(await dispatcher.runOnce(), 1)
    const [delivered] = await outboxRows(t)
    assert.equal(delivered!.status, 'delivered')
    assert.equal(gateway.requests.length, 3)

    // Only dead or failed rows are retried.
    assert.deepEqual(await operations.retry(String(delivered!.id)), {
      done: false,
      reason: `outbox row ${delivered!.id} is delivered; only dead or failed rows are retried`
    })
    assert.deepEqual(await operations.retry('999999'), { done: false, reason: 'there is no outbox row 999999' })
  })
})
