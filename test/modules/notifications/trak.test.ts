import assert from 'node:assert/strict'
import { after, afterEach, before, beforeEach, it } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { describeEachDialect } from '../../helpers/app.js'
import { ManualClock } from '../../../src/common/clock.js'
import { enqueue, insertOrderFixture, outboxRows, resetOutbox, stepMessages, trackedEntries } from './factories.js'
import { Dispatchers, webhookSecret } from './harness.js'
import { startHttpReceiver, type HttpReceiver, type ReceivedRequest } from './receivers.js'

const SECRET = webhookSecret()

/** What a careful receiver does: verify the Standard Webhooks signature of the exact body. */
function verified(request: ReceivedRequest, secret = SECRET): unknown {
  return new Webhook(secret).verify(request.body, {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature'])
  })
}

describeEachDialect('outbox trak channel (D-60, D-56)', (t) => {
  const dispatchers = new Dispatchers(t)
  let receiver: HttpReceiver

  before(async () => {
    receiver = await startHttpReceiver()
  })
  after(() => receiver.close())
  beforeEach(async () => {
    receiver.requests.length = 0
    receiver.answer = () => 200
    await resetOutbox(t)
  })
  afterEach(() => dispatchers.stopAll())

  it('should add a tracked history entry by actor system when no WEBHOOK_URL is set', async () => {
    const order = await insertOrderFixture(t)
    await enqueue(t, stepMessages(order, 2, ['trak']))
    const clock = new ManualClock(t.clock.now() + 5_000)
    const dispatcher = dispatchers.create({ clock })
    assert.equal(await dispatcher.runOnce(), 1)
    assert.deepEqual(await trackedEntries(t, order.id), [
      { type: 'tracked', actor: 'system', position: 2, description: 'Washing', at: clock.now() }
    ])
    const [row] = await outboxRows(t)
    assert.equal(row!.status, 'delivered')
    assert.equal(receiver.requests.length, 0)
  })

  it('should POST a webhook signed per Standard Webhooks that the receiver verifies, and track the step', async () => {
    const order = await insertOrderFixture(t)
    await enqueue(t, stepMessages(order, 3, ['trak']))
    const dispatcher = dispatchers.create({ settings: { webhookUrl: receiver.url, webhookSecret: SECRET } })
    assert.equal(await dispatcher.runOnce(), 1)

    assert.equal(receiver.requests.length, 1)
    const [request] = receiver.requests
    const [row] = await outboxRows(t)
    assert.equal(request!.headers['webhook-id'], row!.event_id)
    assert.equal(request!.headers['content-type'], 'application/json')
    assert.match(String(request!.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/)
    const event = verified(request!) as { timestamp: string }
    // The body's timestamp is the signed one, to the millisecond.
    assert.match(event.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    assert.equal(Math.floor(Date.parse(event.timestamp) / 1000), Number(request!.headers['webhook-timestamp']))
    assert.deepEqual(event, {
      type: 'transaction.step_entered',
      timestamp: event.timestamp,
      data: {
        transaction_id: order.public_id,
        transaction_code: String(order.code),
        service_name: order.service.name,
        position_number: '3',
        total_steps: 3,
        description: 'Delivered'
      }
    })
    // Another secret does not verify it.
    assert.throws(() => verified(request!, webhookSecret()), /No matching signature/)
    assert.equal(row!.status, 'delivered')
    assert.equal((await trackedEntries(t, order.id)).length, 1)
  })

  it('should redeliver a refused webhook with the same webhook-id and add the history entry only once', async () => {
    const clock = new ManualClock(t.clock.now())
    receiver.answer = (_request, index) => (index === 0 ? 500 : 200)
    const order = await insertOrderFixture(t)
    await enqueue(t, stepMessages(order, 1, ['trak']), clock.now())
    const dispatcher = dispatchers.create({ settings: { webhookUrl: receiver.url, webhookSecret: SECRET }, clock })

    assert.equal(await dispatcher.runOnce(), 1)
    const [failed] = await outboxRows(t)
    assert.equal(failed!.status, 'pending')
    assert.equal(failed!.attempts, 1)
    assert.equal(failed!.last_error, 'the webhook receiver answered HTTP 500')
    assert.deepEqual(await trackedEntries(t, order.id), [], 'nothing is tracked before the delivery succeeds')

    clock.set(failed!.next_attempt_at)
    assert.equal(await dispatcher.runOnce(), 1)
    assert.equal(receiver.requests.length, 2)
    const [first, second] = receiver.requests
    assert.equal(first!.headers['webhook-id'], failed!.event_id)
    assert.equal(second!.headers['webhook-id'], failed!.event_id)
    const a = verified(first!) as { data: unknown }
    const b = verified(second!) as { data: unknown }
    assert.deepEqual(a.data, b.data)
    assert.equal((await trackedEntries(t, order.id)).length, 1)
    const [row] = await outboxRows(t)
    assert.equal(row!.status, 'delivered')
    assert.equal(row!.attempts, 1)
  })
})
