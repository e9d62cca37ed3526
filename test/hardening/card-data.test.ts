import assert from 'node:assert/strict'
import { it } from 'node:test'
import { sha256Hex } from '../../src/common/crypto.js'
import { describeEachDialect } from '../helpers/app.js'
import { ok, problem } from '../helpers/assertions.js'
import { createCustomer } from '../helpers/factories.js'

const NUMBER = '4242424242424242'

/** Card numbers of the same bank (first six digits) passing Luhn: what an attacker would try. */
function candidates(count: number): string[] {
  const found: string[] = []
  for (let n = 4242420000000000; found.length < count; n++) {
    const digits = String(n)
    let sum = 0
    for (let i = 0; i < digits.length; i++) {
      let d = Number(digits[digits.length - 1 - i])
      if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2
      sum += d
    }
    if (sum % 10 === 0) found.push(digits)
  }
  return [...found, NUMBER]
}

describeEachDialect('card data in idempotency records (D-34, D-52, issue 8)', (t) => {
  it('should keep only a keyed digest of a request holding a card, so the table cannot be searched for the number', async () => {
    const customer = await createCustomer(t)
    const expiry = `12/${new Date(t.clock.now()).getUTCFullYear() + 3}`
    const body = (number: string) => ({
      customer: {
        customer_id: customer.id,
        creditcard: { cc_name: 'Ada Tester', cc_number: number, cc_expiration: expiry, cc_cvv: '123', cc_zip: '10001' }
      }
    })
    const key = { 'idempotency-key': 'card-digest-1' }
    const first = ok(await t.post('/v1/customer/update', body(NUMBER), { headers: key }))
    const row = await t.database.db
      .selectFrom('idempotency_keys')
      .select(['fingerprint', 'response'])
      .where('key', '=', 'card-digest-1')
      .executeTakeFirstOrThrow()
    // Someone reading the table knows the customer id and the request's shape; an unkeyed digest
    // would let them find the number among the bank's few billion (here: a handful, the real one last).
    for (const candidate of candidates(50)) {
      assert.notEqual(
        row.fingerprint,
        sha256Hex(`POST /v1/customer/update\n${JSON.stringify(body(candidate))}`),
        'the stored digest gives the card number away'
      )
    }
    assert.ok(!row.response.includes(NUMBER) && !row.response.includes('4242'))
    // The key still does its job: the same request replays, another card under the same key is 422.
    assert.deepEqual(ok(await t.post('/v1/customer/update', body(NUMBER), { headers: key })), first)
    problem(await t.post('/v1/customer/update', body('4000056655665556'), { headers: key }), 'idempotency_key_reused')
  })
})
