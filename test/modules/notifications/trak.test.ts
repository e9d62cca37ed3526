import assert from 'node:assert/strict'
import { after, afterEach, before, beforeEach, it } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { ManualClock } from '../../../src/common/clock.js'
import { linkTrackedEntries } from '../../../src/db/migrations/0011_history_follows.js'
import { dispatcherOptions } from '../../../src/modules/notifications/outbox.dispatcher.js'
import { outboxOperations } from '../../../src/modules/notifications/outbox.operations.js'
import { describeEachDialect } from '../../helpers/app.js'
import { ok } from '../../helpers/assertions.js'
import { createCustomer, createOrder, createService } from '../../helpers/factories.js'
import { Dispatchers, webhookSecret } from './support/dispatchers.js'
import { enqueue, insertOrderFixture, outboxRows, resetOutbox, stepMessages, trackedEntries } from './support/outbox.js'
import { type HttpReceiver, type ReceivedRequest, startHttpReceiver } from './support/receivers.js'

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

  it('should add a tracked history entry by actor system when no WEBHOOK_URL is set, dated when the step was entered', async () => {
    const order = await insertOrderFixture(t)
    const entered = t.clock.now()
    await enqueue(t, stepMessages(order, 2, ['trak']), entered)
    const clock = new ManualClock(entered + 5_000)
    const dispatcher = dispatchers.create({ clock })
    assert.equal(await dispatcher.runOnce(), 1)
    assert.deepEqual(await trackedEntries(t, order.id), [
      { type: 'tracked', actor: 'system', by: '', position: 2, description: 'Washing', at: entered }
    ])
    const [row] = await outboxRows(t)
    assert.equal(row!.status, 'delivered')
    assert.equal(receiver.requests.length, 0)
  })

  it('should POST a webhook signed per Standard Webhooks that the receiver verifies, and track the step', async () => {
    const order = await insertOrderFixture(t)
    const entered = t.clock.now()
    await enqueue(t, stepMessages(order, 3, ['trak']), entered)
    const clock = new ManualClock(entered + 7_500)
    const dispatcher = dispatchers.create({ settings: { webhookUrl: receiver.url, webhookSecret: SECRET }, clock })
    assert.equal(await dispatcher.runOnce(), 1)

    assert.equal(receiver.requests.length, 1)
    const [request] = receiver.requests
    const [row] = await outboxRows(t)
    assert.equal(request!.headers['webhook-id'], row!.event_id)
    assert.equal(request!.headers['content-type'], 'application/json')
    assert.match(String(request!.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/)
    const event = verified(request!) as { timestamp: string }
    // Standard Webhooks: the body says when the event occurred (the step was entered), to the
    // millisecond; the signed header when this attempt was sent.
    assert.equal(event.timestamp, new Date(entered).toISOString())
    assert.equal(Number(request!.headers['webhook-timestamp']), Math.floor(clock.now() / 1000))
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
    assert.deepEqual(await trackedEntries(t, order.id), [
      { type: 'tracked', actor: 'system', by: '', position: 3, description: 'Delivered', at: entered }
    ])
  })

  it('should send the credentials of a WEBHOOK_URL with user:password@ as HTTP Basic, beside the signature', async () => {
    const order = await insertOrderFixture(t)
    await enqueue(t, stepMessages(order, 1, ['trak']))
    const url = new URL(receiver.url)
    const dispatcher = dispatchers.create({ settings: { webhookUrl: `http://hooks:s3cret@${url.host}/hook`, webhookSecret: SECRET } })
    assert.equal(await dispatcher.runOnce(), 1)
    const [row] = await outboxRows(t)
    assert.equal(row!.status, 'delivered', row!.last_error ?? '')
    const [request] = receiver.requests
    assert.equal(request!.url, '/hook')
    assert.equal(request!.headers.authorization, `Basic ${Buffer.from('hooks:s3cret').toString('base64')}`)
    verified(request!)
  })

  it('should track the step at the first attempt though the webhook is refused, and redeliver only the webhook, same id and timestamp', async () => {
    const clock = new ManualClock(t.clock.now())
    receiver.answer = (_request, index) => (index === 0 ? 500 : 200)
    const order = await insertOrderFixture(t)
    const entered = clock.now()
    await enqueue(t, stepMessages(order, 1, ['trak']), entered)
    const dispatcher = dispatchers.create({ settings: { webhookUrl: receiver.url, webhookSecret: SECRET }, clock })

    assert.equal(await dispatcher.runOnce(), 1)
    const [failed] = await outboxRows(t)
    assert.equal(failed!.status, 'pending')
    assert.equal(failed!.attempts, 1)
    assert.equal(failed!.last_error, 'the webhook receiver answered HTTP 500')
    // D-60: the history entry does not depend on the webhook.
    assert.deepEqual(await trackedEntries(t, order.id), [
      { type: 'tracked', actor: 'system', by: '', position: 1, description: 'Picked up', at: entered }
    ])

    clock.set(failed!.next_attempt_at)
    assert.equal(await dispatcher.runOnce(), 1)
    assert.equal(receiver.requests.length, 2)
    const [first, second] = receiver.requests
    assert.equal(first!.headers['webhook-id'], failed!.event_id)
    assert.equal(second!.headers['webhook-id'], failed!.event_id)
    const a = verified(first!) as { data: unknown; timestamp: string }
    const b = verified(second!) as { data: unknown; timestamp: string }
    assert.deepEqual(a.data, b.data)
    assert.equal(b.timestamp, a.timestamp, 'the event occurred once: the same timestamp on every retry')
    assert.equal((await trackedEntries(t, order.id)).length, 1)
    const [row] = await outboxRows(t)
    assert.equal(row!.status, 'delivered')
    assert.equal(row!.attempts, 1)
  })

  it('should track once when the webhook stays down until the row is dead, and not again when it is sent again', async () => {
    const clock = new ManualClock(t.clock.now())
    receiver.answer = () => 500
    const order = await insertOrderFixture(t)
    const entered = clock.now()
    await enqueue(t, stepMessages(order, 2, ['trak']), entered)
    const dispatcher = dispatchers.create({
      settings: { webhookUrl: receiver.url, webhookSecret: SECRET },
      clock,
      options: { retry: { ...dispatcherOptions().retry, maxAttempts: 2 } }
    })
    assert.equal(await dispatcher.runOnce(), 1)
    clock.set((await outboxRows(t))[0]!.next_attempt_at)
    assert.equal(await dispatcher.runOnce(), 1)
    const [dead] = await outboxRows(t)
    assert.equal(dead!.status, 'dead')
    assert.equal((await trackedEntries(t, order.id)).length, 1)

    // `outbox retry` starts the dead row over; the receiver is back.
    receiver.answer = () => 200
    const retried = await outboxOperations(t.database, clock).retry(String(dead!.id))
    assert.equal(retried.done, true)
    assert.equal(await dispatcher.runOnce(), 1)
    assert.equal((await outboxRows(t))[0]!.status, 'delivered')
    assert.deepEqual(await trackedEntries(t, order.id), [
      { type: 'tracked', actor: 'system', by: '', position: 2, description: 'Washing', at: entered }
    ])
  })

  it('should list a tracked entry written after a later change in its place by time in the history, and leave it off the tracking page (D-56)', async () => {
    const order = await insertOrderFixture(t)
    const entered = t.clock.now()
    await enqueue(t, stepMessages(order, 1, ['trak']), entered)
    // The order moved on before the dispatcher came round to the trak row.
    await t.database.unitOfWork.run(({ db: trx }) =>
      trx
        .insertInto('order_history')
        .values({ order_id: order.id, at: entered + 1_000, type: 'moved', position: 2, description: 'Washing', actor: 'staff' })
        .execute()
    )
    const dispatcher = dispatchers.create({ clock: new ManualClock(entered + 2_000) })
    assert.equal(await dispatcher.runOnce(), 1)
    const response = await t.post(`/v1/transaction/${order.public_id}/history`)
    assert.equal(response.statusCode, 200)
    const history = (response.json() as { history: Array<{ at: string; type: string; position_number: string }> }).history
    assert.deepEqual(
      history.map((entry) => [entry.type, entry.position_number, entry.at]),
      [
        ['tracked', '1', new Date(entered).toISOString()],
        ['moved', '2', new Date(entered + 1_000).toISOString()]
      ]
    )
    const link = await t.post(`/v1/transaction/${order.public_id}/tracking`)
    assert.equal(link.statusCode, 200, link.body)
    const token = new URL((link.json() as { tracking_url: string }).tracking_url).pathname.split('/').pop()!
    const status = await t.post(`/track/${token}/status`, undefined, { auth: null })
    assert.equal(status.statusCode, 200, status.body)
    // The customer's page shows the journey only: a tracked entry repeats its step (D-56).
    const timeline = (status.json() as { history: Array<{ type: string }> }).history
    assert.deepEqual(
      timeline.map((entry) => entry.type),
      ['moved']
    )
  })

  it('should list each tracked entry right after the step entry it announces, though later moves came in the same millisecond (D-56)', async () => {
    const customer = await createCustomer(t)
    await createService(t, `Same millisecond ${t.dialect}`, [
      { description: 'Picked up', events: [] },
      { description: 'Washing', events: ['trak'] },
      { description: 'Ironing', events: [] },
      { description: 'Delivered', events: ['trak'] }
    ])
    // The clock stands still: every entry is of the same millisecond.
    t.clock.freeze()
    const order = await (async () => {
      try {
        const created = await createOrder(t, customer.id, `Same millisecond ${t.dialect}`)
        for (let i = 0; i < 3; i++)
          ok(await t.post('/v1/transaction/move', { customer_id: customer.id, transaction_id: created.transaction_id }))
        return created
      } finally {
        t.clock.thaw()
      }
    })()
    const dispatcher = dispatchers.create()
    while ((await dispatcher.runOnce()) > 0);
    const expected = [
      ['created', '1', 'staff', 'test staff'],
      ['moved', '2', 'staff', 'test staff'],
      ['tracked', '2', 'system', ''],
      ['moved', '3', 'staff', 'test staff'],
      ['moved', '4', 'staff', 'test staff'],
      ['tracked', '4', 'system', '']
    ]
    const history = ok(await t.post(`/v1/transaction/${order.transaction_id}/history`)) as { history: Array<Record<string, string>> }
    assert.deepEqual(
      history.history.map((entry) => [entry.type, entry.position_number, entry.actor, entry.by]),
      expected
    )
    assert.ok(history.history.every((entry) => entry.at === history.history[0]!.at))
    const link = ok(await t.post(`/v1/transaction/${order.transaction_id}/tracking`)) as { tracking_url: string }
    const status = ok(await t.post(`${new URL(link.tracking_url).pathname}/status`, undefined, { auth: null })) as {
      history: Array<{ type: string; position_number: string }>
    }
    // The customer's page: the same journey without the tracked entries, which repeat their step.
    assert.deepEqual(
      status.history.map((entry) => [entry.type, entry.position_number]),
      expected.filter(([type]) => type !== 'tracked').map(([type, position]) => [type, position])
    )
  })

  it('should place the tracked entries of an older release in the same way: those written before the upgrade by migration 0011, those pending at it when delivered', async () => {
    const customer = await createCustomer(t)
    await createService(t, `Upgraded ${t.dialect}`, [
      { description: 'Picked up', events: [] },
      { description: 'Washing', events: ['trak'] },
      { description: 'Ironing', events: ['trak'] },
      { description: 'Delivered', events: [] }
    ])
    t.clock.freeze()
    const order = await (async () => {
      try {
        const created = await createOrder(t, customer.id, `Upgraded ${t.dialect}`)
        for (let i = 0; i < 3; i++)
          ok(await t.post('/v1/transaction/move', { customer_id: customer.id, transaction_id: created.transaction_id }))
        return created
      } finally {
        t.clock.thaw()
      }
    })()
    const dispatcher = dispatchers.create()
    // The release before 0011 wrote no links: the step 2 event was delivered then, the step 3 one is still pending.
    const [first] = await outboxRows(t)
    assert.equal(await dispatcher.runOnce(), 1)
    await t.database.db.updateTable('order_history').set({ follows: null }).where('type', '=', 'tracked').execute()
    await t.database.db.updateTable('outbox').set({ history_id: null }).where('status', '=', 'pending').execute()
    const read = async () =>
      (ok(await t.post(`/v1/transaction/${order.transaction_id}/history`)) as { history: Array<Record<string, string>> }).history.map(
        (entry) => `${entry.type} ${entry.position_number}`
      )
    assert.deepEqual(await read(), ['created 1', 'moved 2', 'moved 3', 'moved 4', 'tracked 2'], 'as the old release listed it')
    await linkTrackedEntries(t.database.db)
    assert.deepEqual(await read(), ['created 1', 'moved 2', 'tracked 2', 'moved 3', 'moved 4'])
    assert.equal(first!.history_id !== null, true)
    while ((await dispatcher.runOnce()) > 0);
    assert.deepEqual(await read(), ['created 1', 'moved 2', 'tracked 2', 'moved 3', 'tracked 3', 'moved 4'])
  })
})
