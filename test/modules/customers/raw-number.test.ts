import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { cardNumberDigits, numberTextAt } from '../../../src/modules/customers/raw-number.js'

const PATH = ['customer', 'creditcard', 'cc_number'] as const

describe('numberTextAt: the text of a JSON number in a raw body (D-34)', () => {
  it('should return the digits exactly as written, beyond 2^53', () => {
    const raw = '{"customer":{"customer_id":"cus_1","creditcard":{"cc_name":"A","cc_number":4000000000000000006,"cc_cvv":123}}}'
    assert.equal(numberTextAt(raw, PATH), '4000000000000000006')
  })

  it('should find the key whatever the white space, order of keys and other values around it', () => {
    const raw = `\ufeff {
      "other": {"cc_number": 1, "creditcard": {"cc_number": 2}},
      "list": [ {"customer": 3}, "}]\\"{", true, null, -1.5e3 ],
      "customer" : {
        "address": {"zip": "02134"},
        "creditcard" : { "cc_zip": "02134" , "cc_number"	:
          9999999999999999995 , "cc_expiration": "12/2030" }
      }
    }`
    assert.equal(numberTextAt(raw, PATH), '9999999999999999995')
  })

  it('should take the last of duplicate keys, as JSON.parse does', () => {
    assert.equal(numberTextAt('{"customer":{"creditcard":{"cc_number":1,"cc_number":22}}}', PATH), '22')
    assert.equal(numberTextAt('{"customer":{"creditcard":{"cc_number":1}},"customer":{"creditcard":{"cc_number":33}}}', PATH), '33')
    assert.equal(numberTextAt('{"customer":{"creditcard":{"cc_number":1}},"customer":{"creditcard":{}}}', PATH), undefined)
    assert.equal(numberTextAt('{"customer":{"creditcard":{"cc_number":1}},"customer":null}', PATH), undefined)
  })

  it('should decode escaped keys, as JSON.parse does', () => {
    assert.equal(numberTextAt('{"customer":{"credit\\u0063ard":{"cc\\u005fnumber":444}}}', PATH), '444')
  })

  it('should return the literal of a number written with a fraction or exponent, for the caller to refuse', () => {
    assert.equal(numberTextAt('{"customer":{"creditcard":{"cc_number":4.111111111111111e18}}}', PATH), '4.111111111111111e18')
    assert.equal(numberTextAt('{"customer":{"creditcard":{"cc_number":-12}}}', PATH), '-12')
  })

  it('should return undefined when the value there is not a number or the path is missing', () => {
    assert.equal(numberTextAt('{"customer":{"creditcard":{"cc_number":"4111"}}}', PATH), undefined)
    assert.equal(numberTextAt('{"customer":{"creditcard":{"cc_number":[4111]}}}', PATH), undefined)
    assert.equal(numberTextAt('{"customer":{"creditcard":[]}}', PATH), undefined)
    assert.equal(numberTextAt('{"customer":{}}', PATH), undefined)
    assert.equal(numberTextAt('[]', PATH), undefined)
    assert.equal(numberTextAt('', PATH), undefined)
  })

  it('should not be fooled by the key inside a string', () => {
    const raw = '{"customer":{"note":"\\"creditcard\\":{\\"cc_number\\":5}","creditcard":{"cc_number":6}}}'
    assert.equal(numberTextAt(raw, PATH), '6')
  })

  it('should return undefined for text that is not JSON instead of throwing', () => {
    assert.equal(numberTextAt('{"customer":{"creditcard":{"cc_number":', PATH), undefined)
    assert.equal(numberTextAt('{"customer" {', PATH), undefined)
    assert.equal(numberTextAt('{"customer":{"x":"unterminated', PATH), undefined)
  })

  it('should skip deeply nested values without recursion', () => {
    const deep = '['.repeat(20_000) + ']'.repeat(20_000)
    assert.equal(numberTextAt(`{"a":${deep},"customer":{"creditcard":{"cc_number":7}}}`, PATH), '7')
  })
})

describe('cardNumberDigits: the exact digits of a large cc_number (D-34)', () => {
  it('should give the written digits when they parse to the number the body holds', () => {
    const raw = '{"customer":{"creditcard":{"cc_number":4000000000000000006}}}'
    assert.equal(cardNumberDigits(raw, (JSON.parse(raw) as any).customer.creditcard.cc_number), '4000000000000000006')
  })

  it('should refuse a fraction, an exponent, a sign, a mismatch or a missing raw body', () => {
    // biome-ignore lint/correctness/noPrecisionLoss: the very loss JSON.parse makes, which the raw body corrects
    const parsed = 4000000000000000006
    assert.equal(cardNumberDigits('{"customer":{"creditcard":{"cc_number":4.000000000000000006e18}}}', parsed), undefined)
    assert.equal(cardNumberDigits('{"customer":{"creditcard":{"cc_number":-4000000000000000006}}}', -parsed), undefined)
    assert.equal(cardNumberDigits('{"customer":{"creditcard":{"cc_number":5000000000000000006}}}', parsed), undefined)
    assert.equal(cardNumberDigits(undefined, parsed), undefined)
  })
})
