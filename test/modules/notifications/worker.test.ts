import assert from 'node:assert/strict'
import { after, before, beforeEach, it } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { ManualClock } from '../../../src/common/clock.js'
import { encrypt } from '../../../src/common/crypto.js'
import { describeEachDialect } from '../../helpers/app.js'
import { Cli, cliEnv, DATA_KEY, Dispatchers, webhookSecret } from './support/dispatchers.js'
import {
  enqueue,
  insertCustomer,
  insertOrderFixture,
  outboxRows,
  resetOutbox,
  stepMessages,
  trackedEntries,
  waitFor
} from './support/outbox.js'
import { type HttpReceiver, startHttpReceiver } from './support/receivers.js'

const SECRET = webhookSecret()

// The worker runs on the wall clock, so rows here are written at Date.now(), not the test clock.

describeEachDialect('service-ordering worker and outbox commands (D-61, D-90)', (t) => {
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

  it('should deliver as a worker process and stop with exit status 0 on SIGTERM', async () => {
    const order = await insertOrderFixture(t)
    await enqueue(t, stepMessages(order, 1, ['trak']), Date.now())
    const worker = new Cli(['worker'], cliEnv(t, { WEBHOOK_URL: receiver.url, WEBHOOK_SECRET: SECRET }))
    try {
      await waitFor('the worker to deliver the row', async () => (await outboxRows(t))[0]?.status === 'delivered', 60_000)
      assert.equal(receiver.requests.length, 1)
      new Webhook(SECRET).verify(receiver.requests[0]!.body, receiver.requests[0]!.headers as Record<string, string>)
      assert.equal((await trackedEntries(t, order.id)).length, 1)
      worker.kill('SIGTERM')
      assert.equal(await worker.exited, 0, worker.output)
      assert.ok(
        worker.stdout.some((line) => line.includes('outbox dispatcher is running')),
        worker.output
      )
      assert.ok(
        worker.stdout.some((line) => line.includes('"msg":"stopped"')),
        worker.output
      )
    } finally {
      worker.kill('SIGKILL')
    }
  })

  it('should serve its own /metrics, /healthz and /readyz on WORKER_METRICS_PORT, counting its deliveries (D-71)', async () => {
    const order = await insertOrderFixture(t)
    await enqueue(t, stepMessages(order, 1, ['trak']), Date.now())
    // Port 0: the system picks a free one, and the start line names it.
    const worker = new Cli(['worker'], cliEnv(t, { WEBHOOK_URL: receiver.url, WEBHOOK_SECRET: SECRET, WORKER_METRICS_PORT: '0' }))
    try {
      await waitFor('the worker to deliver the row', async () => (await outboxRows(t))[0]?.status === 'delivered', 60_000)
      const started = /"metrics":"(http:\/\/127\.0\.0\.1:\d+)"[^\n]*"msg":"outbox dispatcher is running"/.exec(worker.stdout.join('\n'))
      assert.ok(started !== null, worker.output)
      const base = started[1]!

      const metrics = await fetch(`${base}/metrics`)
      assert.equal(metrics.status, 200)
      assert.match(metrics.headers.get('content-type') ?? '', /^text\/plain/)
      const text = await metrics.text()
      assert.match(text, /^outbox_deliveries_total\{channel="trak"\} 1$/m)
      assert.match(text, /^outbox_backlog\{channel="trak",status="pending"\} 0$/m)

      assert.match(metrics.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/)
      const health = await fetch(`${base}/healthz`, { headers: { 'x-request-id': 'scrape-1' } })
      assert.deepEqual(await health.json(), { status: 'ok' })
      // D-73: its answers carry X-Request-Id as the API's do.
      assert.equal(health.headers.get('x-request-id'), 'scrape-1')
      assert.equal(health.headers.get('x-content-type-options'), 'nosniff')
      assert.deepEqual(await (await fetch(`${base}/readyz`)).json(), { status: 'ready' })
      const unknown = await fetch(`${base}/v1/service/stats`, { method: 'POST' })
      assert.match(unknown.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/)
      assert.equal(unknown.status, 404)
      assert.equal(unknown.headers.get('content-type'), 'application/problem+json; charset=utf-8')
      assert.equal(((await unknown.json()) as { code: string }).code, 'route_not_found')

      worker.kill('SIGTERM')
      assert.equal(await worker.exited, 0, worker.output)
      // D-73: every line it wrote is JSON (Fastify's deprecation warnings are plain text).
      for (const line of [...worker.stdout, ...worker.stderr].filter((l) => l.trim() !== ''))
        assert.doesNotThrow(() => JSON.parse(line), `not JSON: ${line}`)
    } finally {
      worker.kill('SIGKILL')
    }
  })

  it('should lose nothing when the worker is killed in the middle of a delivery', async () => {
    const order = await insertOrderFixture(t)
    await enqueue(t, stepMessages(order, 1, ['trak']), Date.now())
    const worker = new Cli(['worker'], cliEnv(t, { WEBHOOK_URL: receiver.url, WEBHOOK_SECRET: SECRET }))
    // The webhook arrives; before it is answered, the worker dies.
    receiver.answer = () => {
      worker.kill('SIGKILL')
      return 'hang'
    }
    assert.equal(await worker.exited, 'SIGKILL', worker.output)
    assert.equal(receiver.requests.length, 1)
    const [claimed] = await outboxRows(t)
    assert.equal(claimed!.status, 'pending')
    assert.ok(claimed!.claimed_by !== null, 'the dead worker still holds the lease')

    // Once its 60 s lease has run out, another dispatcher delivers the row: the same event, once more.
    receiver.answer = () => 200
    const clock = new ManualClock(Date.now())
    const dispatcher = dispatchers.create({ clock, settings: { webhookUrl: receiver.url, webhookSecret: SECRET } })
    assert.equal(await dispatcher.runOnce(), 0, 'not while the lease holds')
    clock.set(claimed!.claimed_until!)
    assert.equal(await dispatcher.runOnce(), 1)
    await dispatchers.stopAll()

    assert.equal(receiver.requests.length, 2)
    assert.equal(receiver.requests[1]!.headers['webhook-id'], claimed!.event_id, 'a stable id lets the receiver drop the duplicate')
    const [row] = await outboxRows(t)
    assert.equal(row!.status, 'delivered')
    assert.equal(row!.attempts, 0)
    assert.equal((await trackedEntries(t, order.id)).length, 1)
  })

  it('should list outbox rows without their payloads and send a dead one again with `outbox retry`', async () => {
    const customer = await insertCustomer(t)
    const sealed = encrypt(DATA_KEY, 'http://localhost:3000/reset-password?token=secret-token-value')
    await enqueue(
      t,
      [
        {
          channel: 'email',
          template: 'password_reset',
          orderId: null,
          customerId: customer.id,
          payload: { email: customer.email, sealed_link: sealed }
        }
      ],
      Date.now()
    )
    const [row] = await outboxRows(t)
    await t.database.unitOfWork.run(({ db: trx }) =>
      trx
        .updateTable('outbox')
        .set({ status: 'dead', attempts: 10, last_error: 'the SMTP server said no' })
        .where('id', '=', row!.id)
        .execute()
    )
    const env = cliEnv(t)

    const list = await Cli.run(['outbox', 'list'], env)
    assert.equal(list.code, 0, list.stderr)
    const lines = list.stdout.split('\n')
    assert.match(lines[0]!, /^ID\s+EVENT_ID\s+CHANNEL\s+TEMPLATE\s+STATUS\s+FAILURES\s+NEXT_ATTEMPT\s+LAST_ERROR$/)
    assert.equal(lines.length, 2)
    assert.match(
      lines[1]!,
      new RegExp(`^${row!.id}\\s+${row!.event_id}\\s+email\\s+password_reset\\s+dead\\s+10\\s+-\\s+the SMTP server said no$`)
    )
    assert.ok(!list.stdout.includes(sealed) && !list.stdout.includes('secret-token-value') && !list.stdout.includes(customer.email))

    const retry = await Cli.run(['outbox', 'retry', String(row!.id)], env)
    assert.equal(retry.code, 0, retry.stderr)
    assert.equal(retry.stdout, `outbox row ${row!.id} (${row!.event_id}) will be sent again now`)
    const [revived] = await outboxRows(t)
    assert.equal(revived!.status, 'pending')
    assert.equal(revived!.attempts, 0)
    assert.ok(revived!.next_attempt_at <= Date.now())

    const again = await Cli.run(['outbox', 'retry', row!.event_id], env)
    assert.equal(again.code, 1)
    assert.match(again.stderr, /is pending and has not failed; only dead or failed rows are retried/)

    const wrong = await Cli.run(['outbox', 'list', '--status', 'lost'], env)
    assert.equal(wrong.code, 2)
    assert.match(wrong.stderr, /--status must be one of pending, delivered, skipped, dead/)
    assert.match(wrong.stderr, /outbox retry ID\|EVENT_ID/)
  })
})
