import assert from 'node:assert/strict'
import { after, afterEach, before, beforeEach, it } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { ManualClock } from '../../../src/common/clock.js'
import { openDatabase } from '../../../src/db/database.js'
import type { Channel, DeliveryResult, OutboxDelivery } from '../../../src/modules/notifications/channels/channel.js'
import { type OutboxMessage, outboxWriter } from '../../../src/modules/notifications/outbox.repository.js'
import { describeEachDialect } from '../../helpers/app.js'
import { Dispatchers, webhookSecret } from './support/dispatchers.js'
import {
  enqueue,
  insertCustomer,
  insertOrderFixture,
  outboxRows,
  resetOutbox,
  stepMessages,
  trackedEntries,
  waitFor,
  waitForSettled
} from './support/outbox.js'
import { type HttpReceiver, startHttpReceiver } from './support/receivers.js'

const SECRET = webhookSecret()

/** A channel that records what it was asked to deliver and answers as `answer` says. */
function scriptedChannel(log: string[], answer: (message: OutboxDelivery) => DeliveryResult = () => ({ kind: 'delivered' })): Channel {
  return {
    deliver: async (message) => {
      const result = answer(message)
      log.push(`${message.eventId}:${result.kind}`)
      return result
    }
  }
}

describeEachDialect('outbox dispatcher (D-60, D-61)', (t) => {
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

  it('should deliver in order per transaction: a failing row holds back the later rows of its order only', async () => {
    const clock = new ManualClock(t.clock.now())
    const a = await insertOrderFixture(t)
    const b = await insertOrderFixture(t)
    const c = await insertOrderFixture(t)
    const loner = await insertCustomer(t)
    // Interleaved writes: a1 b1 a2 c1 a3 b2 c2 r (r: a reset e-mail of no order).
    await enqueue(t, stepMessages(a, 1, ['email']), clock.now())
    await enqueue(t, stepMessages(b, 1, ['email']), clock.now())
    await enqueue(t, stepMessages(a, 1, ['text', 'trak']), clock.now())
    await enqueue(t, stepMessages(c, 1, ['email']), clock.now())
    await enqueue(t, stepMessages(b, 2, ['email']), clock.now())
    await enqueue(t, stepMessages(c, 2, ['email']), clock.now())
    await enqueue(
      t,
      [
        {
          channel: 'email',
          template: 'password_reset',
          orderId: null,
          customerId: loner.id,
          payload: { email: loner.email, sealed_link: 'x' }
        }
      ],
      clock.now()
    )
    const rows = await outboxRows(t)
    const name = new Map(rows.map((row, i) => [row.event_id, ['a1', 'b1', 'a2', 'a3', 'c1', 'b2', 'c2', 'r'][i]!]))

    const log: string[] = []
    let a1Failures = 0
    const channel = scriptedChannel(log, (message) => {
      const n = name.get(message.eventId)
      if (n === 'a1' && a1Failures < 2) {
        a1Failures++
        return { kind: 'failed', error: 'receiver down' }
      }
      if (n === 'c1') return { kind: 'failed', error: 'gone for good', permanent: true }
      if (n === 'b1') return { kind: 'skipped', reason: 'no address' }
      return { kind: 'delivered' }
    })
    const dispatcher = dispatchers.create({ clock, channels: { email: channel, text: channel, trak: channel } })
    const step = async () => {
      const before = log.length
      await dispatcher.runOnce()
      return log.slice(before).map((entry) => `${name.get(entry.split(':')[0]!)}:${entry.split(':')[1]}`)
    }

    // Heads of each order, and the row of no order, side by side.
    assert.deepEqual(await step(), ['a1:failed', 'b1:skipped', 'c1:failed', 'r:delivered'])
    // b1 skipped and c1 dead do not hold back b2 and c2; a1 backing off holds back a2 and a3.
    assert.deepEqual(await step(), ['b2:delivered', 'c2:delivered'])
    assert.deepEqual(await step(), [])
    clock.set((await outboxRows(t)).find((row) => name.get(row.event_id) === 'a1')!.next_attempt_at)
    assert.deepEqual(await step(), ['a1:failed'])
    clock.advance(10_000)
    assert.deepEqual(await step(), ['a1:delivered'])
    assert.deepEqual(await step(), ['a2:delivered'])
    assert.deepEqual(await step(), ['a3:delivered'])
    assert.deepEqual(await step(), [])
    const statuses = Object.fromEntries((await outboxRows(t)).map((row) => [name.get(row.event_id), row.status]))
    assert.deepEqual(statuses, {
      a1: 'delivered',
      a2: 'delivered',
      a3: 'delivered',
      b1: 'skipped',
      b2: 'delivered',
      c1: 'dead',
      c2: 'delivered',
      r: 'delivered'
    })
  })

  it('should emit nothing for a change that rolls back, beside one that commits', async () => {
    const order = await insertOrderFixture(t)
    const writer = outboxWriter(t.database)
    const now = t.clock.now()
    // Submitted together, so SQLite's group commit runs them in one batch, each in its savepoint.
    const [rolledBack, committed] = await Promise.allSettled([
      t.database.unitOfWork.run(async (tx) => {
        await writer.enqueue(tx, stepMessages(order, 1, ['email', 'text', 'trak']), now)
        await tx.db.updateTable('orders').set({ note: 'changed' }).where('id', '=', order.id).execute()
        throw new Error('the use case failed after writing its events')
      }),
      t.database.unitOfWork.run((trx) => writer.enqueue(trx, stepMessages(order, 2, ['trak']), now))
    ])
    assert.equal(rolledBack.status, 'rejected')
    assert.equal(committed.status, 'fulfilled')
    const rows = await outboxRows(t)
    assert.deepEqual(
      rows.map((row) => [row.channel, JSON.parse(row.payload).position]),
      [['trak', 2]]
    )

    const dispatcher = dispatchers.create({ settings: { webhookUrl: receiver.url, webhookSecret: SECRET } })
    dispatcher.start()
    await waitForSettled(t)
    assert.equal(receiver.requests.length, 1)
    assert.equal((JSON.parse(receiver.requests[0]!.body) as { data: { position_number: string } }).data.position_number, '2')
    assert.deepEqual(
      (await trackedEntries(t, order.id)).map((e) => e.position),
      [2]
    )
  })

  it('should lose nothing when a dispatcher dies mid-delivery: its lease runs out and another delivers each row once', async () => {
    const clock = new ManualClock(t.clock.now())
    const orders = [await insertOrderFixture(t), await insertOrderFixture(t), await insertOrderFixture(t)]
    for (const order of orders) await enqueue(t, stepMessages(order, 1, ['trak']), clock.now())
    await enqueue(t, stepMessages(orders[0]!, 2, ['trak']), clock.now())

    // Dispatcher A claims the three heads and never finishes delivering them, as if killed.
    const stuck: Array<(result: DeliveryResult) => void> = []
    const hanging: Channel = { deliver: () => new Promise((resolve) => stuck.push(resolve)) }
    const a = dispatchers.create({ clock, channels: { trak: hanging }, options: { leaseMs: 60_000, deliveryTimeoutMs: 50_000 } })
    a.start()
    await waitFor('dispatcher A to be mid-delivery of three rows', () => stuck.length === 3)
    await a.stop({ drainMs: 0 })

    const b = dispatchers.create({ clock, settings: { webhookUrl: receiver.url, webhookSecret: SECRET } })
    // While A's lease holds, nobody else touches its rows.
    clock.advance(59_999)
    assert.equal(await b.runOnce(), 0)
    assert.equal(receiver.requests.length, 0)
    // The lease runs out: B takes the rows over.
    clock.advance(1)
    assert.equal(await b.runOnce(), 3)
    assert.equal(await b.runOnce(), 1, 'then the second row of the first order')
    assert.equal(await b.runOnce(), 0)

    const rows = await outboxRows(t)
    assert.ok(rows.every((row) => row.status === 'delivered' && row.attempts === 0 && row.claimed_by === null))
    assert.deepEqual(receiver.requests.map((r) => r.headers['webhook-id']).sort(), rows.map((row) => row.event_id).sort())
    for (const request of receiver.requests) new Webhook(SECRET).verify(request.body, request.headers as Record<string, string>)

    // A comes back to life and reports success: its lease is gone, so nothing is recorded twice.
    for (const resolve of stuck) resolve({ kind: 'delivered', onDelivered: async () => assert.fail('A must not write history') })
    await waitFor('A to notice it lost its leases', () => dispatchers.logs.filter((l) => l.includes('outbox lease lost')).length === 3)
    assert.deepEqual(
      (await trackedEntries(t, orders[0]!.id)).map((e) => e.position),
      [1, 2]
    )
    assert.equal((await trackedEntries(t, orders[1]!.id)).length, 1)
    assert.equal((await trackedEntries(t, orders[2]!.id)).length, 1)
    assert.deepEqual(await outboxRows(t), rows)
  })

  it('should never deliver a row twice, nor out of order, with two dispatchers at once', async () => {
    const ORDERS = 40
    const STEPS = 3
    const orders = []
    for (let i = 0; i < ORDERS; i++) orders.push(await insertOrderFixture(t))
    const messages: OutboxMessage[] = []
    for (let position = 1; position <= STEPS; position++)
      for (const order of orders) messages.push(...stepMessages(order, position, ['trak']))
    await enqueue(t, messages)

    const inFlight = new Set<string>()
    const deliveries = new Map<string, number>()
    const positions = new Map<string, number[]>()
    let overlaps = 0
    receiver.answer = async (request) => {
      const id = String(request.headers['webhook-id'])
      if (inFlight.has(id)) overlaps++
      inFlight.add(id)
      deliveries.set(id, (deliveries.get(id) ?? 0) + 1)
      const { data } = new Webhook(SECRET).verify(request.body, request.headers as Record<string, string>) as {
        data: { transaction_id: string; position_number: string }
      }
      positions.set(data.transaction_id, [...(positions.get(data.transaction_id) ?? []), Number(data.position_number)])
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5))
      inFlight.delete(id)
      return 200
    }

    // PostgreSQL: a second pool, as a second process has. SQLite: the same connection, as two
    // processes would each wait for the file's write lock; two connections in one process cannot
    // (better-sqlite3 waits for a busy lock synchronously, holding up the very holder of the lock).
    const separate = t.database.dialect.name === 'postgres'
    const second = separate ? openDatabase(t.config) : t.database
    try {
      const settings = { webhookUrl: receiver.url, webhookSecret: SECRET }
      const options = { batchSize: 7, pollIntervalMs: 5 }
      const one = dispatchers.create({ settings, options })
      const two = dispatchers.create({ settings, options, database: second })
      one.start()
      two.start()
      const rows = await waitForSettled(t, 120_000)
      await dispatchers.stopAll()

      assert.equal(rows.length, ORDERS * STEPS)
      assert.ok(rows.every((row) => row.status === 'delivered'))
      assert.equal(overlaps, 0)
      assert.equal(deliveries.size, ORDERS * STEPS)
      assert.ok(
        [...deliveries.values()].every((n) => n === 1),
        'each row delivered exactly once'
      )
      for (const order of orders) assert.deepEqual(positions.get(order.public_id), [1, 2, 3], 'in order per transaction')
      const tracked = await t.database.db
        .selectFrom('order_history')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('type', '=', 'tracked')
        .executeTakeFirstOrThrow()
      assert.equal(Number(tracked.n), ORDERS * STEPS)
    } finally {
      if (separate) await second.close()
    }
  })

  it('should claim past rows another transaction holds locked instead of waiting (FOR UPDATE SKIP LOCKED)', {
    skip: t.dialect !== 'postgres' && 'PostgreSQL only'
  }, async () => {
    const orders = [await insertOrderFixture(t), await insertOrderFixture(t), await insertOrderFixture(t)]
    for (const order of orders) await enqueue(t, stepMessages(order, 1, ['trak']))
    const [first, ...others] = await outboxRows(t)
    // Another dispatcher's claim transaction, caught between locking the first row and committing.
    const other = await t.database.db.startTransaction().execute()
    try {
      await other.selectFrom('outbox').select('id').where('id', '=', first!.id).forUpdate().execute()
      const dispatcher = dispatchers.create()
      assert.equal(await dispatcher.runOnce(), 2, 'the two unlocked rows, at once')
      const rows = await outboxRows(t)
      assert.deepEqual(
        rows.map((row) => row.status),
        ['pending', 'delivered', 'delivered']
      )
      assert.deepEqual(
        rows.slice(1).map((row) => row.id),
        others.map((row) => row.id)
      )
      await other.commit().execute()
      assert.equal(await dispatcher.runOnce(), 1, 'the first row once its lock is gone')
    } catch (error) {
      await other
        .rollback()
        .execute()
        .catch(() => {})
      throw error
    }
  })

  it('should finish the delivery in flight when stopped, before the database may close', async () => {
    const order = await insertOrderFixture(t)
    await enqueue(t, stepMessages(order, 1, ['trak']))
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    receiver.answer = async () => {
      await released
      return 200
    }
    const dispatcher = dispatchers.create({ settings: { webhookUrl: receiver.url, webhookSecret: SECRET } })
    dispatcher.start()
    await waitFor('the webhook to arrive', () => receiver.requests.length === 1)
    const stopped = dispatcher.stop({ drainMs: 30_000 })
    setTimeout(release, 100)
    await stopped
    const [row] = await outboxRows(t)
    assert.equal(row!.status, 'delivered')
    assert.equal((await trackedEntries(t, order.id)).length, 1)
  })

  it('should poll at once when nudged after a commit, instead of waiting for the next poll', async () => {
    const dispatcher = dispatchers.create({ options: { pollIntervalMs: 600_000 } })
    dispatcher.start()
    // Let the first (empty) poll pass, so the loop sleeps its ten minutes.
    await new Promise((resolve) => setTimeout(resolve, 200))
    const order = await insertOrderFixture(t)
    await enqueue(t, stepMessages(order, 1, ['trak']))
    dispatcher.nudge()
    await waitForSettled(t)
    assert.equal((await trackedEntries(t, order.id)).length, 1)
  })

  it('should deliver other orders while one delivery hangs: it holds back only its own order', async () => {
    const stuck = await insertOrderFixture(t)
    const others = [await insertOrderFixture(t), await insertOrderFixture(t)]
    await enqueue(t, stepMessages(stuck, 1, ['email', 'trak']))
    for (const order of others) await enqueue(t, stepMessages(order, 1, ['email', 'trak']))
    const stuckEvent = (await outboxRows(t))[0]!.event_id
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    const email: Channel = {
      deliver: async (message) => {
        if (message.eventId === stuckEvent) await released
        return { kind: 'delivered' }
      }
    }
    const dispatcher = dispatchers.create({ channels: { email }, options: { deliveryTimeoutMs: 50_000 } })
    dispatcher.start()
    // The other orders' e-mails and then their tracking entries go out while the first e-mail hangs.
    for (const order of others)
      await waitFor('the other orders to be tracked', async () => (await trackedEntries(t, order.id)).length === 1)
    const rows = await outboxRows(t)
    assert.deepEqual(
      rows.map((row) => [row.order_id, row.channel, row.status]),
      [
        [stuck.id, 'email', 'pending'],
        [stuck.id, 'trak', 'pending'],
        ...others.flatMap((order) => [
          [order.id, 'email', 'delivered'],
          [order.id, 'trak', 'delivered']
        ])
      ]
    )
    assert.equal(rows[0]!.claimed_by, dispatcher.id)
    assert.equal(rows[1]!.claimed_by, null, "the hanging order's next row waits for it (D-60)")
    release()
    await waitForSettled(t)
    assert.equal((await trackedEntries(t, stuck.id)).length, 1)
  })

  it('should keep claiming for the other channels while one channel has its fill of deliveries in flight', async () => {
    const orders = [await insertOrderFixture(t), await insertOrderFixture(t), await insertOrderFixture(t)]
    const late = [await insertOrderFixture(t), await insertOrderFixture(t)]
    for (const order of orders) await enqueue(t, stepMessages(order, 1, ['email']))
    const hanging: Array<() => void> = []
    const email: Channel = {
      deliver: () => new Promise((resolve) => hanging.push(() => resolve({ kind: 'delivered' })))
    }
    const dispatcher = dispatchers.create({ channels: { email }, options: { batchSize: 2, deliveryTimeoutMs: 50_000 } })
    dispatcher.start()
    await waitFor('two e-mails in flight', () => hanging.length === 2)
    // Tracking rows written after the e-mails are claimed past the third, waiting e-mail.
    for (const order of late) await enqueue(t, stepMessages(order, 1, ['trak']))
    for (const order of late) await waitFor('the tracking rows to go out', async () => (await trackedEntries(t, order.id)).length === 1)
    const third = (await outboxRows(t))[2]!
    assert.equal(third.status, 'pending')
    assert.equal(third.claimed_by, null, 'no more than two e-mails at once')
    assert.equal(hanging.length, 2)
    for (const release of hanging.splice(0)) release()
    await waitFor('the third e-mail', () => hanging.length === 1)
    hanging[0]!()
    const rows = await waitForSettled(t)
    assert.ok(rows.every((row) => row.status === 'delivered'))
  })

  it('should give up on a delivery that outlasts its time-out and retry it later', async () => {
    const order = await insertOrderFixture(t)
    await enqueue(t, stepMessages(order, 1, ['trak']))
    receiver.answer = () => 'hang'
    const dispatcher = dispatchers.create({
      settings: { webhookUrl: receiver.url, webhookSecret: SECRET },
      options: { deliveryTimeoutMs: 200 }
    })
    assert.equal(await dispatcher.runOnce(), 1)
    const [row] = await outboxRows(t)
    assert.equal(row!.status, 'pending')
    assert.equal(row!.attempts, 1)
    assert.match(row!.last_error!, /delivery timed out$/)
  })
})
