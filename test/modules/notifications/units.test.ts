import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ConfigError, loadConfig } from '../../../src/config.js'
import { escapeHtml, stepEmail } from '../../../src/modules/notifications/channels/email.templates.js'
import { describeError } from '../../../src/modules/notifications/channels/errors.js'
import { retryAfter } from '../../../src/modules/notifications/channels/http.js'
import { stepText } from '../../../src/modules/notifications/channels/text.channel.js'
import { DEFAULT_RETRY_POLICY, retryDelay } from '../../../src/modules/notifications/outbox.backoff.js'

const PAYLOAD = {
  transaction_id: 'trx_1',
  transaction_code: 12345678,
  service_name: 'Dry Cleaning',
  position: 1,
  total_steps: 3,
  description: 'Picked up'
}

describe('outbox backoff (D-60)', () => {
  it('should double from 1 s with jitter in the upper half of each ceiling, capped at 1 h', () => {
    assert.equal(
      retryDelay(1, DEFAULT_RETRY_POLICY, () => 0),
      500
    )
    assert.equal(
      retryDelay(1, DEFAULT_RETRY_POLICY, () => 0.999999),
      999
    )
    assert.equal(
      retryDelay(4, DEFAULT_RETRY_POLICY, () => 0),
      4000
    )
    assert.equal(
      retryDelay(9, DEFAULT_RETRY_POLICY, () => 0.5),
      192_000
    )
    assert.equal(
      retryDelay(40, DEFAULT_RETRY_POLICY, () => 0),
      1_800_000
    )
    assert.equal(
      retryDelay(5000, DEFAULT_RETRY_POLICY, () => 0.999999),
      3_599_998
    )
    assert.equal(DEFAULT_RETRY_POLICY.maxAttempts, 10)
  })

  it('should grow with every failure whatever the jitter, until the cap', () => {
    for (let trial = 0; trial < 200; trial++) {
      let previous = 0
      for (let failures = 1; failures <= 12; failures++) {
        const delay = retryDelay(failures, DEFAULT_RETRY_POLICY)
        assert.ok(delay > previous, `${delay} after ${previous}`)
        previous = delay
      }
    }
  })
})

describe('outbox message texts (D-60)', () => {
  it('should escape everything HTML gives meaning to', () => {
    assert.equal(escapeHtml(`<a href="x">Tom & 'Jerry'</a>`), '&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;')
  })

  it('should keep line breaks of a description out of the subject', () => {
    const mail = stepEmail('Ann Lee', { ...PAYLOAD, description: 'Picked up\r\nBcc: someone@example.com' })
    assert.equal(mail.subject, 'Dry Cleaning, step 1 of 3 (33%): Picked up Bcc: someone@example.com')
  })

  it('should greet without a name when the customer has none', () => {
    assert.match(stepEmail('', PAYLOAD).text, /^Hello,\n/)
    assert.equal(stepText('', PAYLOAD), 'Your Dry Cleaning order 12345678 is at step 1 of 3 (33%): Picked up')
  })

  it('should shorten a long description in a text', () => {
    const text = stepText('Ann', { ...PAYLOAD, description: 'x'.repeat(400) })
    assert.ok(text.endsWith(`${'x'.repeat(159)}…`))
  })

  it('should describe errors in one line without URLs', () => {
    const error = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' })
    })
    assert.equal(describeError(error), 'fetch failed: connect ECONNREFUSED 127.0.0.1:9')
    assert.equal(describeError(new Error('bad https://user:pw@example.com/x?token=1 here')), 'bad [url] here')
    assert.equal(describeError(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), 'delivery timed out')
  })
})

describe('MAIL_FROM (D-02)', () => {
  it('should default to service-ordering@localhost and accept an address or a display name with one', () => {
    assert.equal(loadConfig({}).mailFrom, 'service-ordering@localhost')
    assert.equal(loadConfig({ MAIL_FROM: 'orders@example.com' }).mailFrom, 'orders@example.com')
    assert.equal(loadConfig({ MAIL_FROM: 'Clean Co <orders@example.com>' }).mailFrom, 'Clean Co <orders@example.com>')
  })

  it('should stop the start with one line for anything else', () => {
    assert.throws(
      () => loadConfig({ MAIL_FROM: 'not an address' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError)
        assert.equal(error.message, 'MAIL_FROM must be an e-mail address or "Display Name <address>" (got "not an address")')
        return true
      }
    )
    assert.throws(() => loadConfig({ MAIL_FROM: 'a@b.c\r\nBcc: x@y.z' }), ConfigError)
  })
})

describe('Retry-After (RFC 9110) of a gateway or webhook answer', () => {
  it('should read seconds and HTTP dates, and nothing else', () => {
    const now = Date.parse('2026-11-25T10:00:00Z')
    assert.equal(retryAfter('120', now), 120_000)
    assert.equal(retryAfter(' 0 ', now), 0)
    assert.equal(retryAfter('2026', now), 2_026_000)
    assert.equal(retryAfter('Wed, 25 Nov 2026 10:05:00 GMT', now), 300_000)
    assert.equal(retryAfter('Wed, 25 Nov 2026 09:00:00 GMT', now), 0, 'a date in the past: no wait')
    for (const bad of [null, '', '-5', '1.5', 'soon', '9999999999', 'in 5 minutes'])
      assert.equal(retryAfter(bad, now), undefined, String(bad))
  })
})
