import assert from 'node:assert/strict'
import { before, it } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { decrypt } from '../../../src/common/crypto.js'
import type { PostOptions } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import {
  assertAbsent,
  createCustomer,
  customerWithPassword,
  describeEachDialectKeyed,
  expiry,
  freshView,
  luhnNumber,
  standalone,
  storedCustomer,
  visible
} from './support.js'

// Numbers, codes and names that must never leave the service once sent (D-34).
const NUMBER = '4242424242424242'
const BIG_NUMBER = luhnNumber('9876543210987654', 19) // far beyond 2^53 as a JSON number
const BAD_LUHN = '4242424242424241'
const NAME = 'Zebulon Quartermaine'
const CVV = '8317'
// The code is four digits: it is looked for as a token of its own, not inside timestamps or ids.
const SECRETS = [NUMBER, BIG_NUMBER, BAD_LUHN, NAME, standalone(CVV), '4242 4242 4242 4242', '9876543210987654']

describeEachDialectKeyed('update customer with a payment card (D-34)', (t) => {
  const seen: string[] = []
  let customer: any
  let card: Record<string, unknown>

  /** Every answer of this suite is kept, to check at the end that none shows card data. */
  async function post(path: string, body: unknown, options?: PostOptions): Promise<LightMyRequestResponse> {
    // Fixed request ids, so no random id can happen to look like a secret.
    const response = await t.post(path, body, { ...options, headers: { 'x-request-id': `card-${seen.length}`, ...options?.headers } })
    seen.push(visible(response))
    return response
  }
  const update = (customer: unknown, options?: PostOptions) => post('/v1/customer/update', { customer }, options)

  before(async () => {
    customer = await createCustomer(t)
    card = { cc_name: NAME, cc_number: Number(NUMBER), cc_expiration: expiry(t, 24), cc_cvv: Number(CVV), cc_zip: '02134' }
  })

  it('should store the number only encrypted, beside last four and expiry, and answer the read shape without card data', async () => {
    const view = ok(await update({ customer_id: customer.customer_id, creditcard: card }))
    assert.deepEqual(view, freshView(customer))
    const row = await storedCustomer(t, customer.customer_id)
    assert.equal(row.card_last4, '4242')
    assert.equal(row.card_expiration, card.cc_expiration)
    assert.deepEqual(JSON.parse(decrypt(t.dataKey, row.card_ciphertext!)), { number: NUMBER, name: NAME, zip: '02134' })
    assert.match(row.payment_customer_id, /^pay_[0-9a-z]{24}$/)
    // The security code is stored nowhere: not in the row, not in the sealed card.
    assertAbsent([JSON.stringify(row)], [standalone(CVV), NUMBER, NAME])
    assertAbsent([decrypt(t.dataKey, row.card_ciphertext!)], [standalone(CVV)])
  })

  it('should keep payment_customer_id when a later card replaces the first', async () => {
    const before = await storedCustomer(t, customer.customer_id)
    ok(await update({ customer_id: customer.customer_id, creditcard: { ...card, cc_number: '5555 5555 5555 4444', cc_cvv: '042' } }))
    const after = await storedCustomer(t, customer.customer_id)
    assert.equal(after.payment_customer_id, before.payment_customer_id)
    assert.equal(after.card_last4, '4444')
    assert.notEqual(after.card_ciphertext, before.card_ciphertext)
    assert.equal(JSON.parse(decrypt(t.dataKey, after.card_ciphertext!)).number, '5555555555554444')
  })

  it('should show payment_customer_id in the create shape of a new customer as empty, and set it on the first card only', async () => {
    const fresh = await createCustomer(t)
    assert.equal(fresh.payment_customer_id, '')
    ok(await update({ customer_id: fresh.customer_id, creditcard: card }))
    assert.match((await storedCustomer(t, fresh.customer_id)).payment_customer_id, /^pay_/)
  })

  it('should keep every digit of a card number sent as a JSON number beyond 2^53', async () => {
    assert.ok(!Number.isSafeInteger(Number(BIG_NUMBER)))
    const raw = `{"customer":{"customer_id":"${customer.customer_id}","creditcard":{"cc_name":"${NAME}","cc_number":${BIG_NUMBER},"cc_expiration":"${card.cc_expiration}","cc_cvv":${CVV},"cc_zip":"02134"}}}`
    const response = await post('/v1/customer/update', undefined, { raw, contentType: 'application/json' })
    ok(response)
    const row = await storedCustomer(t, customer.customer_id)
    assert.equal(JSON.parse(decrypt(t.dataKey, row.card_ciphertext!)).number, BIG_NUMBER)
    assert.equal(row.card_last4, BIG_NUMBER.slice(-4))
  })

  it('should refuse a large card number whose digits cannot be read back exactly', async () => {
    const before = await storedCustomer(t, customer.customer_id)
    const raw = `{"customer":{"customer_id":"${customer.customer_id}","creditcard":{"cc_name":"${NAME}","cc_number":9.876543210987654e18,"cc_expiration":"${card.cc_expiration}","cc_cvv":${CVV},"cc_zip":"02134"}}}`
    const body = problem(await post('/v1/customer/update', undefined, { raw, contentType: 'application/json' }), 'invalid_card', [
      '/customer/creditcard/cc_number'
    ])
    assert.deepEqual(body.errors, [{ field: '/customer/creditcard/cc_number', message: 'must be the digits of the card number' }])
    assert.deepEqual(await storedCustomer(t, customer.customer_id), before)
  })

  it('should answer partial_card naming each missing field, and change nothing', async () => {
    const before = await storedCustomer(t, customer.customer_id)
    const fields = ['cc_name', 'cc_number', 'cc_expiration', 'cc_cvv', 'cc_zip']
    for (const missing of fields) {
      const partial = { ...card }
      delete partial[missing]
      const body = problem(await update({ customer_id: customer.customer_id, creditcard: partial }), 'partial_card', [
        `/customer/creditcard/${missing}`
      ])
      assert.equal(body.detail, 'A card update must send cc_name, cc_number, cc_expiration, cc_cvv and cc_zip together.')
    }
    problem(
      await update({ customer_id: customer.customer_id, creditcard: {} }),
      'partial_card',
      fields.map((f) => `/customer/creditcard/${f}`)
    )
    assert.deepEqual(await storedCustomer(t, customer.customer_id), before)
  })

  it('should answer invalid_card naming the field for each broken rule, and change nothing', async () => {
    const before = await storedCustomer(t, customer.customer_id)
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ cc_number: Number(BAD_LUHN) }, 'cc_number', 'does not pass the Luhn check'],
      [{ cc_number: BAD_LUHN }, 'cc_number', 'does not pass the Luhn check'],
      [{ cc_number: '42424242424' }, 'cc_number', 'must have 12 to 19 digits'],
      [{ cc_number: `${NUMBER}0000` }, 'cc_number', 'must have 12 to 19 digits'],
      [{ cc_number: 'four two four two' }, 'cc_number', 'must be the digits of the card number'],
      [{ cc_number: 4242.5 }, 'cc_number', 'must be the digits of the card number'],
      [{ cc_expiration: expiry(t, -1) }, 'cc_expiration', 'is in the past'],
      [{ cc_expiration: '2030-12' }, 'cc_expiration', 'must be MM/YYYY'],
      [{ cc_expiration: '13/2030' }, 'cc_expiration', 'must be MM/YYYY'],
      [{ cc_cvv: 12 }, 'cc_cvv', 'must be 3 or 4 digits'],
      [{ cc_cvv: '12345' }, 'cc_cvv', 'must be 3 or 4 digits'],
      [{ cc_zip: '0213' }, 'cc_zip', 'must be five digits'],
      [{ cc_zip: 'abcde' }, 'cc_zip', 'must be five digits'],
      [{ cc_name: '  ' }, 'cc_name', 'must not be empty']
    ]
    for (const [change, field, message] of cases) {
      const body = problem(await update({ customer_id: customer.customer_id, creditcard: { ...card, ...change } }), 'invalid_card', [
        `/customer/creditcard/${field}`
      ])
      assert.deepEqual(body.errors, [{ field: `/customer/creditcard/${field}`, message }])
      assert.equal(body.detail, `The card is not valid: ${field} ${message}.`)
    }
    assert.deepEqual(await storedCustomer(t, customer.customer_id), before)
  })

  it('should accept the current month as expiry', async () => {
    ok(await update({ customer_id: customer.customer_id, creditcard: { ...card, cc_expiration: expiry(t, 0) } }))
  })

  it('should answer validation_failed for card fields of the wrong type, naming them', async () => {
    for (const [field, value] of [
      ['cc_number', true],
      ['cc_number', null],
      ['cc_cvv', [123]],
      ['cc_name', 5],
      ['cc_expiration', 122030],
      ['cc_zip', 2134]
    ] as const) {
      problem(await update({ customer_id: customer.customer_id, creditcard: { ...card, [field]: value } }), 'validation_failed', [
        `/customer/creditcard/${field}`
      ])
    }
    problem(await update({ customer_id: customer.customer_id, creditcard: NUMBER }), 'validation_failed', ['/customer/creditcard'])
    problem(await update({ customer_id: customer.customer_id, creditcard: { ...card, cc_name: 'n'.repeat(101) } }), 'validation_failed', [
      '/customer/creditcard/cc_name'
    ])
  })

  it('should let a customer save a card on their own record only', async () => {
    const me = await customerWithPassword(t)
    ok(await update({ customer_id: me.id, creditcard: card }, { auth: me.auth }))
    assert.equal((await storedCustomer(t, me.id)).card_last4, '4242')
    problem(await update({ customer_id: customer.customer_id, creditcard: card }, { auth: me.auth }), 'customer_not_found')
  })

  it('should replay a card update with its Idempotency-Key without storing card data in the replay record', async () => {
    const key = { 'idempotency-key': `card-${customer.customer_id}` }
    const first = ok(await update({ customer_id: customer.customer_id, creditcard: card }, { headers: key }))
    assert.deepEqual(ok(await update({ customer_id: customer.customer_id, creditcard: card }, { headers: key })), first)
    const stored = await t.database.db.selectFrom('idempotency_keys').selectAll().execute()
    assertAbsent([JSON.stringify(stored)], SECRETS)
  })

  it('should have shown card data in no response, problem document or log line of this suite', () => {
    // D-34, D-73. Runs last: it reads what every test above sent back and logged.
    assert.ok(seen.length > 30)
    assertAbsent(seen, SECRETS)
    assert.ok(t.logs.length > 30)
    assertAbsent(t.logs, SECRETS)
  })
})
