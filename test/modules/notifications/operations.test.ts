import assert from 'node:assert/strict'
import { it } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { loadConfig } from '../../../src/config.js'
import { startServer } from '../../../src/http-server.js'
import { outboxWriter } from '../../../src/modules/notifications/outbox.repository.js'
import { createLogger } from '../../../src/platform/logger.js'
import { describeEachDialect } from '../../helpers/app.js'
import { Dispatchers, metricValue, webhookSecret } from './support/dispatchers.js'
import { enqueue, insertOrderFixture, outboxRows, resetOutbox, stepMessages, trackedEntries, waitFor } from './support/outbox.js'
import { startHttpReceiver } from './support/receivers.js'

describeEachDialect('outbox operations: /metrics and the in-process dispatcher (D-61, D-71)', (t) => {
  const dispatchers = new Dispatchers(t)

  it('should show the backlog by channel and status, and the delivery counters, on /metrics', async () => {
    await resetOutbox(t)
    const order = await insertOrderFixture(t, { phone: '' })
    await enqueue(t, [...stepMessages(order, 1, ['email', 'text', 'trak']), ...stepMessages(order, 2, ['trak'])])

    const response = await t.app.inject({ method: 'GET', url: '/metrics' })
    assert.equal(response.statusCode, 200)
    for (const name of [
      'outbox_backlog',
      'outbox_deliveries_total',
      'outbox_failures_total',
      'outbox_dead_letters_total',
      'outbox_skipped_total'
    ]) {
      assert.match(response.body, new RegExp(`^# TYPE ${name} (gauge|counter)$`, 'm'))
    }
    for (const channel of ['email', 'text', 'trak']) {
      for (const status of ['pending', 'dead'])
        assert.match(response.body, new RegExp(`^outbox_backlog\\{channel="${channel}",status="${status}"\\} \\d+$`, 'm'))
    }
    assert.equal(await metricValue(t, 'outbox_backlog{channel="trak",status="pending"}'), 2)
    assert.equal(await metricValue(t, 'outbox_backlog{channel="email",status="pending"}'), 1)

    const delivered = await metricValue(t, 'outbox_deliveries_total{channel="trak"}')
    const skipped = await metricValue(t, 'outbox_skipped_total{channel="text"}')
    dispatchers.create().start()
    await waitFor(
      'the backlog to drain',
      async () =>
        (await metricValue(t, 'outbox_backlog{channel="trak",status="pending"}')) === 0 &&
        (await metricValue(t, 'outbox_backlog{channel="email",status="pending"}')) === 0
    )
    await dispatchers.stopAll()
    assert.equal(await metricValue(t, 'outbox_deliveries_total{channel="trak"}'), delivered + 2)
    assert.equal(await metricValue(t, 'outbox_skipped_total{channel="text"}'), skipped + 1)
    assert.equal(await metricValue(t, 'outbox_backlog{channel="text",status="pending"}'), 0)
  })

  it('should run the dispatcher inside the API process with DISPATCHER=on and stop it on close', async () => {
    await resetOutbox(t)
    const receiver = await startHttpReceiver()
    const secret = webhookSecret()
    const database = t.config.database
    const config = loadConfig({
      DATABASE_URL: database.kind === 'sqlite' ? `sqlite:${database.file}` : database.url,
      DATA_DIR: t.config.dataDir,
      PORT: '0',
      DISPATCHER: 'on',
      WEBHOOK_URL: receiver.url,
      WEBHOOK_SECRET: secret
    })
    const logs: string[] = []
    const server = await startServer(config, { logger: createLogger('info', { write: (line: string) => void logs.push(line) }) })
    try {
      const order = await insertOrderFixture(t)
      // Written through the server's own connection, as its use cases write (one writer on SQLite).
      await server.database.unitOfWork.run((trx) =>
        outboxWriter(server.database).enqueue(trx, stepMessages(order, 1, ['trak']), Date.now())
      )
      await waitFor('the in-process dispatcher to deliver', async () => (await outboxRows(t))[0]?.status === 'delivered')
      assert.equal(receiver.requests.length, 1)
      new Webhook(secret).verify(receiver.requests[0]!.body, receiver.requests[0]!.headers as Record<string, string>)
      assert.equal((await trackedEntries(t, order.id)).length, 1)
      // The dispatcher counts into the registry the API serves.
      const metrics = await (await fetch(`${server.url}/metrics`)).text()
      assert.match(metrics, /^outbox_deliveries_total\{channel="trak"\} 1$/m)
    } finally {
      await server.close()
      await receiver.close()
    }
    assert.ok(!logs.some((line) => line.includes(secret)))
  })
})
