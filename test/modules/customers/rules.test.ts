import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { cleanText, nameProblem, phoneDigits, splitName } from '../../../src/modules/customers/customers.fields.js'
import { nameKey } from '../../../src/modules/customers/name-key.js'
import { prefixRange, queryWords } from '../../../src/modules/customers/search.words.js'

describe('customer field rules (D-31, D-32)', () => {
  it('should split a full name at the first space, tidying white space', () => {
    assert.deepEqual(splitName('John Smith'), { first_name: 'John', last_name: 'Smith' })
    assert.deepEqual(splitName('  Mary   Ann  Smith '), { first_name: 'Mary', last_name: 'Ann Smith' })
    assert.deepEqual(splitName('Cher'), { first_name: 'Cher', last_name: '' })
    assert.deepEqual(splitName('   '), { first_name: '', last_name: '' })
    assert.deepEqual(splitName('Jean\tLuc\nPicard'), { first_name: 'Jean', last_name: 'Luc Picard' })
  })

  it('should limit a full name to 100 characters (D-70), counting characters not UTF-16 units, after clean-up', () => {
    assert.equal(nameProblem('a'.repeat(100)), undefined)
    assert.equal(nameProblem(`${'a'.repeat(49)} ${'b'.repeat(50)}`), undefined)
    assert.equal(nameProblem('😀'.repeat(100)), undefined)
    assert.equal(nameProblem(`  ${'a'.repeat(50)}   ${'b'.repeat(49)}  `), undefined)
    assert.equal(nameProblem('a'.repeat(101)), 'must be at most 100 characters')
    assert.equal(nameProblem(`${'a'.repeat(50)} ${'b'.repeat(50)}`), 'must be at most 100 characters')
    assert.equal(nameProblem('😀'.repeat(101)), 'must be at most 100 characters')
  })

  it('should normalise text to NFC', () => {
    assert.equal(cleanText('Ame\u0301lie'), 'Amélie')
  })

  it('should keep 7 to 15 digits of a phone number given as a number or as grouped digit text', () => {
    assert.equal(phoneDigits(5551234567), '5551234567')
    assert.equal(phoneDigits('+1 (555) 123-4567'), '15551234567')
    assert.equal(phoneDigits('555.123.4567'), '5551234567')
    assert.equal(phoneDigits('1234567'), '1234567')
    assert.equal(phoneDigits('123456789012345'), '123456789012345')
    assert.equal(phoneDigits(''), '')
    assert.equal(phoneDigits('  '), '')
  })

  it('should refuse phone numbers of other lengths or with other characters', () => {
    for (const value of ['123456', '1234567890123456', 123456, 1234567890123456, 'call me', '555-CALL-NOW', '1+555', 1.5, -5551234]) {
      assert.equal(phoneDigits(value), undefined, String(value))
    }
  })
})

describe('search words and prefix ranges (D-33)', () => {
  it('should fold case and accents, split on any white space and drop repeated words', () => {
    assert.deepEqual(queryWords('  Jo   SM\tjo '), ['jo', 'sm'])
    assert.deepEqual(queryWords('ÉMILE émile Emile'), ['emile'])
    assert.deepEqual(queryWords('STRAẞE straße'), ['strasse'])
    assert.deepEqual(queryWords('İsmail YILDIZ yıldız'), ['ismail', 'yildiz'])
    assert.deepEqual(queryWords('ΟΔΥΣΣΕΑΣ Ｊｏｈｎ ﬁsh'), ['οδυσσεασ', 'john', 'fish'])
    // Marks that are parts of letters (not accents of the Latin, Greek and Cyrillic block) stay.
    assert.deepEqual(queryWords('किरण'), ['किरण'])
    // A spacing accent typed for an apostrophe keeps the word whole (its compatibility form has a space).
    assert.deepEqual(queryWords('O´Brien\tSeamus'), ["o'brien", 'seamus'])
  })

  it('should fold a name as a person typing it would not tell it apart (nameKey)', () => {
    const cases: Array<[string, string]> = [
      ['John Smith', 'john smith'],
      ['José', 'jose'],
      ['Jose\u0301', 'jose'],
      ['Straße', 'strasse'],
      ['STRAẞE', 'strasse'],
      ['İsmail Yıldız', 'ismail yildiz'],
      ['ΟΔΥΣΣΕΑΣ', 'οδυσσεασ'],
      ['Ἀλέξης', 'αλεξησ'],
      ['Łukasz Łódź', 'lukasz lodz'],
      ['Søren Ørsted', 'soren orsted'],
      ['Nguyễn Đặng', 'nguyen dang'],
      ['Æsa Œuvre ǽ', 'aesa oeuvre ae'],
      ['ﬁona', 'fiona'],
      ['Ｊｏｈｎ', 'john'],
      ['𝐀lice', 'alice'],
      ["O´Brien O’Brien O`Brien O'Brien", "o'brien o'brien o'brien o'brien"],
      ['ﷺ Test', 'ﷺ test'],
      ['דָּוִד כֹּהֵן', 'דוד כהן'],
      ['مُحَمَّد', 'محمد'],
      ['Йорк Ёлка', 'йорк елка'],
      ['И\u0306орк', 'йорк'],
      ['김철수', '김철수'],
      ['किरण', 'किरण'],
      ['Jo\u200bhanna \u200elrm', 'johanna lrm'],
      ['a\u00a0b', 'a b']
    ]
    for (const [name, key] of cases) assert.equal(nameKey(name), key, name)
  })

  it('should drop words another word starts with, since the longer one decides', () => {
    assert.deepEqual(queryWords('jo john'), ['john'])
    assert.deepEqual(queryWords('j jo joh sm'), ['joh', 'sm'])
    assert.deepEqual(queryWords('a b c'), ['a', 'b', 'c'])
  })

  it('should make a range holding exactly the texts that start with the prefix', () => {
    assert.deepEqual(prefixRange('jo'), { from: 'jo', to: 'jp' })
    assert.deepEqual(prefixRange('az'), { from: 'az', to: 'a{' })
    assert.deepEqual(prefixRange('é'), { from: 'é', to: 'ê' })
    assert.deepEqual(prefixRange('a\ud7ff'), { from: 'a\ud7ff', to: 'a\ue000' })
    assert.deepEqual(prefixRange('b\u{10ffff}'), { from: 'b\u{10ffff}', to: 'c' })
    assert.deepEqual(prefixRange('😀'), { from: '😀', to: '😁' })
    const names = ['jo', 'joan', 'jo\u{10ffff}', 'jozzz', 'jp', 'jn', 'j', 'joé']
    const { from, to } = prefixRange('jo')
    // Code point order, as SQLite BINARY and PostgreSQL "C" compare UTF-8.
    const byCodePoint = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b))
    const inRange = names.filter((n) => byCodePoint(n, from) >= 0 && byCodePoint(n, to) < 0).sort()
    assert.deepEqual(inRange, names.filter((n) => n.startsWith('jo')).sort())
  })

  it('should bound even a prefix of the last code point', () => {
    const { to } = prefixRange('\u{10ffff}')
    const name = '\u{10ffff}'.repeat(100)
    assert.ok(Buffer.compare(Buffer.from(name), Buffer.from(to)) < 0)
  })
})
