import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, afterEach, before, beforeEach, it } from 'node:test'
import { encrypt } from '../../../src/common/crypto.js'
import { describeEachDialect } from '../../helpers/app.js'
import { DATA_KEY, Dispatchers } from './support/dispatchers.js'
import { enqueue, insertCustomer, insertOrderFixture, outboxRows, resetOutbox, stepMessages, waitFor } from './support/outbox.js'
import { parseMail, type SmtpReceiver, startSmtpReceiver } from './support/receivers.js'

const STEPS = ['Picked up', 'Washing <hot> & "dry"', 'Delivered']

describeEachDialect('outbox email channel (D-60, D-36)', (t) => {
  const dispatchers = new Dispatchers(t)
  let smtp: SmtpReceiver

  before(async () => {
    smtp = await startSmtpReceiver()
  })
  after(() => smtp.close())
  beforeEach(async () => {
    smtp.messages.length = 0
    smtp.refuseRecipient = () => undefined
    smtp.hanging.length = 0
    await resetOutbox(t)
  })
  afterEach(async () => {
    smtp.releaseHanging()
    await dispatchers.stopAll()
  })

  it('should send a step e-mail over SMTP with plain text and HTML naming the customer, service, step, code and progress', async () => {
    const order = await insertOrderFixture(t, { first_name: 'Zoë', last_name: "<b>O'Brien</b>" }, STEPS)
    await enqueue(t, stepMessages(order, 2, ['email']))
    const dispatcher = dispatchers.create({ settings: { smtpUrl: smtp.url } })
    dispatcher.start()

    const [received] = await waitFor('the SMTP server to receive the e-mail', () => smtp.messages.length === 1 && smtp.messages)
    assert.deepEqual(received!.to, [order.customer.email])
    assert.equal(received!.from, 'orders@example.com')
    const mail = parseMail(received!.raw)
    assert.match(mail.headers.subject!, new RegExp(`^${order.service.name}, step 2 of 3`))
    assert.match(mail.headers.to!, new RegExp(order.customer.email.replace(/[.]/g, '\\.')))
    const [row] = await waitFor('the row to be delivered', async () => {
      const rows = await outboxRows(t)
      return rows[0]?.status === 'delivered' && rows
    })
    assert.equal(mail.headers['message-id'], `<${row!.event_id}@service-ordering>`)

    // Plain text: everything as written.
    assert.match(mail.text, /Hello Zoë <b>O'Brien<\/b>,/)
    assert.ok(mail.text.includes(`Your ${order.service.name} order ${order.code} is now at step 2 of 3 (67%):`), mail.text)
    assert.ok(mail.text.includes('Washing <hot> & "dry"'))

    // HTML: the same facts, customer and staff text escaped.
    assert.ok(mail.html.includes('Hello Zoë &lt;b&gt;O&#39;Brien&lt;/b&gt;,'), mail.html)
    assert.ok(mail.html.includes('Washing &lt;hot&gt; &amp; &quot;dry&quot;'))
    assert.ok(!mail.html.includes('<b>O'))
    assert.ok(!mail.html.includes('<hot>'))
    assert.ok(mail.html.includes(`<strong>${order.code}</strong>`))
    assert.ok(mail.html.includes('step 2 of 3 (67%)'))
    assert.ok(mail.html.includes('width: 67%'))

    assert.equal(row!.attempts, 0)
    assert.equal(row!.claimed_by, null)
    assert.ok(row!.delivered_at !== null)
  })

  it('should write one .eml file per message under DATA_DIR/mail when SMTP_URL is unset', async () => {
    const order = await insertOrderFixture(t, { first_name: 'Ann', last_name: 'Lee' }, STEPS)
    await enqueue(t, [...stepMessages(order, 1, ['email']), ...stepMessages(order, 2, ['email'])])
    const dir = dispatchers.dataDir()
    dispatchers.create({ settings: { dataDir: dir } }).start()

    const rows = await waitFor('both rows to be delivered', async () => {
      const rows = await outboxRows(t)
      return rows.length === 2 && rows.every((row) => row.status === 'delivered') && rows
    })
    const files = fs.readdirSync(path.join(dir, 'mail')).sort()
    assert.deepEqual(files, rows.map((row) => `${row.event_id}.eml`).sort())
    const first = parseMail(fs.readFileSync(path.join(dir, 'mail', `${rows[0]!.event_id}.eml`), 'utf8'))
    assert.match(first.headers.subject!, /, step 1 of 3 \(33%\): Picked up$/)
    assert.match(first.headers.from!, /orders@example\.com/)
    assert.ok(first.text.includes('Hello Ann Lee,'))
    assert.ok(first.text.includes(`order ${order.code} is now at step 1 of 3 (33%)`))
    assert.ok(first.html.includes('<p style="font-size: 1.2em;">Picked up</p>'))
    const second = parseMail(fs.readFileSync(path.join(dir, 'mail', `${rows[1]!.event_id}.eml`), 'utf8'))
    assert.ok(second.text.includes('step 2 of 3 (67%)'))
  })

  it('should send the password reset link unsealed, then scrub it from the outbox and never log it', async () => {
    const customer = await insertCustomer(t, { first_name: 'Rita', last_name: 'Reset' })
    const token = 'tok_ThisIsTheSecretResetToken0123456789abcdef'
    const link = `http://localhost:3000/reset-password?token=${token}&x=1`
    const sealed = encrypt(DATA_KEY, link)
    await enqueue(t, [
      {
        channel: 'email',
        template: 'password_reset',
        orderId: null,
        customerId: customer.id,
        payload: { email: customer.email, sealed_link: sealed }
      }
    ])
    const dispatcher = dispatchers.create({ settings: { smtpUrl: smtp.url } })
    assert.equal(await dispatcher.runOnce(), 1)

    assert.equal(smtp.messages.length, 1)
    assert.deepEqual(smtp.messages[0]!.to, [customer.email])
    const mail = parseMail(smtp.messages[0]!.raw)
    assert.equal(mail.headers.subject, 'Reset your password')
    assert.ok(mail.text.includes('Hello Rita Reset,'))
    assert.ok(mail.text.includes(link), mail.text)
    assert.ok(mail.html.includes(`href="http://localhost:3000/reset-password?token=${token}&amp;x=1"`), mail.html)

    const [row] = await outboxRows(t)
    assert.equal(row!.status, 'delivered')
    assert.deepEqual(JSON.parse(row!.payload), { email: customer.email, link_scrubbed: true })
    assert.ok(!row!.payload.includes(sealed))
    const logs = dispatchers.logs.join('\n')
    assert.ok(logs.includes('outbox message delivered'), 'the delivery is logged (debug)')
    assert.ok(!logs.includes(token) && !logs.includes(sealed) && !logs.includes('reset-password'))
  })

  it('should let a reset e-mail die at once when its link cannot be unsealed with the data key', async () => {
    const customer = await insertCustomer(t)
    const sealed = encrypt(Buffer.alloc(32, 7), 'http://localhost:3000/reset-password?token=abc')
    await enqueue(t, [
      {
        channel: 'email',
        template: 'password_reset',
        orderId: null,
        customerId: customer.id,
        payload: { email: customer.email, sealed_link: sealed }
      }
    ])
    const dispatcher = dispatchers.create({ settings: { smtpUrl: smtp.url } })
    assert.equal(await dispatcher.runOnce(), 1)
    const [row] = await outboxRows(t)
    assert.equal(row!.status, 'dead')
    assert.equal(row!.attempts, 1)
    assert.equal(row!.last_error, 'the reset link cannot be unsealed with this data key')
    assert.equal(smtp.messages.length, 0)
  })

  it('should skip a step e-mail whose customer no longer exists, with the reason recorded', async () => {
    const order = await insertOrderFixture(t, {}, STEPS)
    const [message] = stepMessages(order, 1, ['email'])
    await enqueue(t, [{ ...message!, customerId: 'cus_gone' }])
    const dispatcher = dispatchers.create({ settings: { smtpUrl: smtp.url } })
    assert.equal(await dispatcher.runOnce(), 1)
    const [row] = await outboxRows(t)
    assert.equal(row!.status, 'skipped')
    assert.equal(row!.last_error, 'the customer no longer exists')
    assert.equal(smtp.messages.length, 0)
  })

  it('should record an SMTP failure and retry later, without the SMTP URL or its password in the error', async () => {
    const order = await insertOrderFixture(t, {}, STEPS)
    await enqueue(t, stepMessages(order, 1, ['email']))
    // Nothing listens on port 1.
    const dispatcher = dispatchers.create({ settings: { smtpUrl: 'smtp://user:hunter2hunter2@127.0.0.1:1' } })
    assert.equal(await dispatcher.runOnce(), 1)
    const [row] = await outboxRows(t)
    assert.equal(row!.status, 'pending')
    assert.equal(row!.attempts, 1)
    assert.ok(row!.next_attempt_at > row!.updated_at)
    assert.ok(row!.last_error !== null && row!.last_error.length > 0)
    assert.ok(!row!.last_error!.includes('hunter2'))
    assert.ok(!dispatchers.logs.join('\n').includes('hunter2'))
  })

  it('should let an e-mail die at once when the SMTP server refuses its recipient for good (5xx), and retry a 4xx', async () => {
    const gone = await insertOrderFixture(t, { email: 'gone@example.com' }, STEPS)
    const busy = await insertOrderFixture(t, { email: 'busy@example.com' }, STEPS)
    await enqueue(t, stepMessages(gone, 1, ['email']))
    await enqueue(t, stepMessages(busy, 1, ['email']))
    smtp.refuseRecipient = (address) => (address === 'gone@example.com' ? 550 : 450)
    const dispatcher = dispatchers.create({ settings: { smtpUrl: smtp.url } })
    assert.equal(await dispatcher.runOnce(), 2)
    const [dead, retried] = await outboxRows(t)
    assert.equal(dead!.status, 'dead')
    assert.equal(dead!.attempts, 1)
    assert.match(dead!.last_error!, /^Can't send mail - all recipients were rejected: 550 No such mailbox here/)
    assert.equal(retried!.status, 'pending')
    assert.equal(retried!.attempts, 1)
    assert.match(retried!.last_error!, /450 Mailbox busy, try later/)
    assert.ok(retried!.next_attempt_at > retried!.updated_at)
    assert.equal(smtp.messages.length, 0)
    assert.ok(dispatchers.logs.some((line) => line.includes('outbox message is dead')))
  })

  it('should send the e-mails of other orders while a few recipients are never answered (SMTP connections as many as e-mails in flight)', async () => {
    const stuck = []
    for (let i = 0; i < 4; i++) stuck.push(await insertOrderFixture(t, { email: `tarpit${i}@example.com` }, STEPS))
    const others = [
      await insertOrderFixture(t, { email: 'one@example.com' }, STEPS),
      await insertOrderFixture(t, { email: 'two@example.com' }, STEPS)
    ]
    for (const order of stuck) await enqueue(t, stepMessages(order, 1, ['email']))
    smtp.refuseRecipient = (address) => (address.startsWith('tarpit') ? 'hang' : undefined)
    const dispatcher = dispatchers.create({ settings: { smtpUrl: smtp.url }, options: { deliveryTimeoutMs: 50_000 } })
    dispatcher.start()
    await waitFor('four recipients hanging', () => smtp.hanging.length === 4)
    for (const order of others) await enqueue(t, stepMessages(order, 1, ['email']))
    await waitFor("the other orders' e-mails", () => smtp.messages.length === 2)
    assert.deepEqual(smtp.messages.map((mail) => mail.to).sort(), [['one@example.com'], ['two@example.com']])
    // The receiver has the e-mails a moment before their outcomes are recorded.
    const rows = await waitFor('the two deliveries recorded', async () => {
      const now = await outboxRows(t)
      return now.filter((row) => row.status === 'delivered').length === 2 && now
    })
    assert.deepEqual(
      rows.map((row) => row.status),
      ['pending', 'pending', 'pending', 'pending', 'delivered', 'delivered']
    )
  })
})
