import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { cleanText, nameProblem, phoneDigits, splitName } from '../../../src/modules/customers/customers.fields.js'
import { nameKey } from '../../../src/modules/customers/name-key.js'
import { queryWords } from '../../../src/modules/customers/search.words.js'

const wordsOf = (query: string) => queryWords(query).map((w) => w.word)

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

describe('search words (D-33)', () => {
  it('should fold case and accents, split on any white space and drop repeated words', () => {
    assert.deepEqual(wordsOf('  Jo   SM\tjo '), ['jo', 'sm'])
    assert.deepEqual(wordsOf('ÉMILE émile Emile'), ['emile'])
    assert.deepEqual(wordsOf('STRAẞE straße'), ['strasse'])
    assert.deepEqual(wordsOf('İsmail YILDIZ yıldız'), ['ismail', 'yildiz'])
    assert.deepEqual(wordsOf('ΟΔΥΣΣΕΑΣ Ｊｏｈｎ ﬁsh'), ['οδυσσεασ', 'john', 'fish'])
    // Marks that are parts of letters (not accents of the Latin, Greek and Cyrillic block) stay.
    assert.deepEqual(wordsOf('किरण'), ['किरण'])
    // A spacing accent typed for an apostrophe keeps the word whole (its compatibility form has a space).
    assert.deepEqual(wordsOf('O´Brien\tSeamus'), ["o'brien", 'seamus'])
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

  it('should drop words another word starts with, since the longer one decides, but never a number of 1 or 2 digits', () => {
    assert.deepEqual(wordsOf('jo john'), ['john'])
    assert.deepEqual(wordsOf('j jo joh sm'), ['joh', 'sm'])
    assert.deepEqual(wordsOf('a b c'), ['a', 'b', 'c'])
    assert.deepEqual(wordsOf('555 5550123'), ['5550123'])
    // "55" must start a name word or the e-mail; "5550123" may match inside the phone instead.
    assert.deepEqual(wordsOf('55 5550123'), ['5550123', '55'])
    assert.deepEqual(wordsOf('5 555'), ['555', '5'])
  })

  it('should put the longest word first, and give each its kept prefix and length in code points', () => {
    assert.deepEqual(wordsOf('jo smithson ann'), ['smithson', 'ann', 'jo'])
    assert.deepEqual(queryWords('Schwarzenegger 𐐀lice'), [
      { word: 'schwarzenegger', prefix: 'schwarze', length: 14 },
      { word: '𐐨lice', prefix: '𐐨lice', length: 5 }
    ])
    assert.deepEqual(queryWords('𐐀𐐀𐐀𐐀𐐀𐐀𐐀𐐀𐐀'), [{ word: '𐐨'.repeat(9), prefix: '𐐨'.repeat(8), length: 9 }])
    assert.deepEqual(queryWords('\u200b \u200e'), [])
  })
})
