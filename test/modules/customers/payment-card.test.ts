import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { describe, it } from 'node:test'
import { decrypt } from '../../../src/common/crypto.js'
import { type CardInput, checkCard, passesLuhn, sealCard } from '../../../src/modules/payments/card.js'
import { Problem } from '../../../src/platform/problems.js'

const NOW = Date.UTC(2026, 10, 15, 12) // 15 Nov 2026
const GOOD: Required<CardInput> = {
  cc_name: ' Ada  Lovelace ',
  cc_number: 4111111111111111,
  cc_expiration: '11/2026',
  cc_cvv: 123,
  cc_zip: '02134'
}

function rejection(input: CardInput, exact?: string): { code: string; errors: unknown; detail: string } {
  try {
    checkCard(input, NOW, exact)
  } catch (error) {
    assert.ok(error instanceof Problem)
    return { code: error.code, errors: error.errors, detail: error.detail }
  }
  assert.fail('expected the card to be refused')
}

describe('card rules (D-34)', () => {
  it('should pass the Luhn check for known test numbers and fail it for a changed digit', () => {
    for (const number of ['4111111111111111', '5555555555554444', '378282246310005', '6011111111111117', '79927398713'])
      assert.ok(passesLuhn(number), number)
    for (const number of ['4111111111111112', '5555555555554445', '79927398710']) assert.ok(!passesLuhn(number), number)
  })

  it('should accept a valid card and keep name, digits, expiry and zip but not the security code', () => {
    const card = checkCard(GOOD, NOW)
    assert.deepEqual(card, { name: 'Ada Lovelace', number: '4111111111111111', expiration: '11/2026', zip: '02134' })
  })

  it('should accept the number and the code as digit text, the number grouped by spaces or hyphens', () => {
    assert.equal(checkCard({ ...GOOD, cc_number: '4111 1111 1111 1111', cc_cvv: '0123' }, NOW).number, '4111111111111111')
    assert.equal(checkCard({ ...GOOD, cc_number: '4111-1111-1111-1111' }, NOW).number, '4111111111111111')
    assert.equal(checkCard({ ...GOOD, cc_number: '378282246310005', cc_cvv: '1234' }, NOW).number, '378282246310005')
  })

  it('should use the exact digits recovered from the raw body for a number beyond 2^53', () => {
    const exact = '4000000000000000006'
    assert.ok(passesLuhn(exact))
    assert.equal(checkCard({ ...GOOD, cc_number: Number(exact) }, NOW, exact).number, exact)
    assert.deepEqual(rejection({ ...GOOD, cc_number: Number(exact) }).errors, [
      { field: '/customer/creditcard/cc_number', message: 'must be the digits of the card number' }
    ])
  })

  it('should answer partial_card naming every missing field, in the order of the spec', () => {
    const { cc_name, cc_cvv, ...rest } = GOOD
    void cc_name
    void cc_cvv
    const problem = rejection(rest)
    assert.equal(problem.code, 'partial_card')
    assert.deepEqual(problem.errors, [
      { field: '/customer/creditcard/cc_name', message: 'is required with the other card fields' },
      { field: '/customer/creditcard/cc_cvv', message: 'is required with the other card fields' }
    ])
    assert.deepEqual(
      (rejection({}).errors as { field: string }[]).map((e) => e.field),
      ['cc_name', 'cc_number', 'cc_expiration', 'cc_cvv', 'cc_zip'].map((f) => `/customer/creditcard/${f}`)
    )
  })

  const INVALID: Array<[string, CardInput, string, string]> = [
    ['a failing Luhn check', { cc_number: 4111111111111112 }, 'cc_number', 'does not pass the Luhn check'],
    ['11 digits', { cc_number: '79927398713' }, 'cc_number', 'must have 12 to 19 digits'],
    ['20 digits', { cc_number: `${'4'.padEnd(19, '0')}0` }, 'cc_number', 'must have 12 to 19 digits'],
    ['letters', { cc_number: '4111-1111-1111-111x' }, 'cc_number', 'must be the digits of the card number'],
    ['a fraction', { cc_number: 4111111111111111.5 }, 'cc_number', 'must be the digits of the card number'],
    ['a negative number', { cc_number: -4111111111111111 }, 'cc_number', 'must be the digits of the card number'],
    ['an empty number', { cc_number: '' }, 'cc_number', 'must be the digits of the card number'],
    ['an expiry last month', { cc_expiration: '10/2026' }, 'cc_expiration', 'is in the past'],
    ['an expiry last year', { cc_expiration: '12/2025' }, 'cc_expiration', 'is in the past'],
    ['month 13', { cc_expiration: '13/2027' }, 'cc_expiration', 'must be MM/YYYY'],
    ['month 00', { cc_expiration: '00/2027' }, 'cc_expiration', 'must be MM/YYYY'],
    ['a one-digit month', { cc_expiration: '1/2027' }, 'cc_expiration', 'must be MM/YYYY'],
    ['a two-digit year', { cc_expiration: '01/27' }, 'cc_expiration', 'must be MM/YYYY'],
    ['an expiry over 20 years ahead', { cc_expiration: '01/2047' }, 'cc_expiration', 'must be within 20 years'],
    ['a two-digit code', { cc_cvv: 12 }, 'cc_cvv', 'must be 3 or 4 digits'],
    ['a five-digit code', { cc_cvv: '12345' }, 'cc_cvv', 'must be 3 or 4 digits'],
    ['a code with letters', { cc_cvv: '12a' }, 'cc_cvv', 'must be 3 or 4 digits'],
    ['a fractional code', { cc_cvv: 123.5 }, 'cc_cvv', 'must be 3 or 4 digits'],
    ['a four-digit zip', { cc_zip: '0213' }, 'cc_zip', 'must be five digits'],
    ['a ZIP+4 zip', { cc_zip: '02134-1234' }, 'cc_zip', 'must be five digits'],
    ['a blank name', { cc_name: '   ' }, 'cc_name', 'must not be empty']
  ]
  for (const [what, change, field, message] of INVALID) {
    it(`should answer invalid_card for ${what}, naming ${field} and never the value`, () => {
      const problem = rejection({ ...GOOD, ...change })
      assert.equal(problem.code, 'invalid_card')
      assert.deepEqual(problem.errors, [{ field: `/customer/creditcard/${field}`, message }])
      assert.equal(problem.detail, `The card is not valid: ${field} ${message}.`)
    })
  }

  it('should accept the current month, good through its last day', () => {
    assert.equal(checkCard({ ...GOOD, cc_expiration: '11/2026' }, Date.UTC(2026, 10, 30, 23, 59)).expiration, '11/2026')
    assert.equal(checkCard({ ...GOOD, cc_expiration: '12/2046' }, NOW).expiration, '12/2046')
  })

  it('should seal number, name and zip with AES-256-GCM and keep only last four and expiry readable', () => {
    const key = randomBytes(32)
    const sealed = sealCard(key, checkCard(GOOD, NOW))
    assert.equal(sealed.card_last4, '1111')
    assert.equal(sealed.card_expiration, '11/2026')
    assert.match(sealed.card_ciphertext, /^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
    assert.ok(!sealed.card_ciphertext.includes('4111111111111111'))
    assert.deepEqual(JSON.parse(decrypt(key, sealed.card_ciphertext)), { number: '4111111111111111', name: 'Ada Lovelace', zip: '02134' })
    assert.throws(() => decrypt(randomBytes(32), sealed.card_ciphertext))
    // A fresh IV each time: the same card never seals to the same text.
    assert.notEqual(sealCard(key, checkCard(GOOD, NOW)).card_ciphertext, sealed.card_ciphertext)
  })
})
