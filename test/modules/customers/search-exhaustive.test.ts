import assert from 'node:assert/strict'
import { before, it } from 'node:test'
import { nameKey } from '../../../src/modules/customers/name-key.js'
import { describeEachDialect } from '../../helpers/app.js'
import { ok } from '../../helpers/assertions.js'
import { expectedHits, matchesQuery, type SearchPerson, seedSearchPeople } from './support.js'

/** The terms D-33 matches a word against: name words (and the parts of hyphenated ones), the e-mail, the phone digits. */
function termsOf(p: SearchPerson): string[] {
  const names = `${nameKey(p.first)} ${nameKey(p.last)}`
  return [...new Set([...names.split(' '), ...names.split(/[ -]/), nameKey(p.email)].filter((term) => term !== ''))]
}

/** The first `n` code points of a text, for each `n` of `cuts` that is not past its end. */
function cutsOf(text: string, cuts: readonly number[]): string[] {
  const points = [...text]
  return [...new Set(cuts.filter((n) => n >= 1 && n <= points.length).map((n) => points.slice(0, n).join('')))]
}

/** Every stretch of `length` digits inside a phone number. */
function digitsOf(phone: string, length: number): string[] {
  return Array.from({ length: Math.max(0, phone.length - length + 1) }, (_, i) => phone.slice(i, i + length))
}

describeEachDialect('search customers, every term against the rule (D-33)', (t) => {
  let people: SearchPerson[] = []
  const check = async (query: string) => {
    assert.deepEqual(ok(await t.post('/v1/customer/search', { query, limit: 100 })), expectedHits(people, matchesQuery(query), 100), query)
  }

  before(async () => {
    people = await seedSearchPeople(t)
  })

  it('should find exactly the customers each start of each term matches, one to twelve code points long', async () => {
    const words = new Set<string>()
    for (const p of people)
      for (const term of termsOf(p)) for (const word of cutsOf(term, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])) words.add(word)
    assert.ok(words.size > 200)
    for (const word of words) await check(word)
  })

  it('should find exactly the customers each run of digits of a phone matches, from one digit to all', async () => {
    const numbers = new Set<string>()
    for (const p of people)
      for (let length = 1; length <= p.phone.length; length++) for (const run of digitsOf(p.phone, length)) numbers.add(run)
    assert.ok(numbers.size > 100)
    for (const number of numbers) await check(number)
  })

  it('should find exactly the customers two words match, from two terms of one customer, either way round', async () => {
    const queries = new Set<string>()
    for (const p of people) {
      const starts = termsOf(p).flatMap((term) => cutsOf(term, [2, 9, 100]))
      const runs = [...digitsOf(p.phone, 3).slice(0, 2), ...digitsOf(p.phone, 9).slice(0, 1)]
      const words = [...starts, ...runs]
      for (const a of words) for (const b of words) if (a !== b) queries.add(`${a} ${b}`)
    }
    assert.ok(queries.size > 300, String(queries.size))
    for (const query of queries) await check(query)
  })

  it('should find exactly the customers three words match, across customers too', async () => {
    const starts = people.flatMap((p) => termsOf(p).flatMap((term) => cutsOf(term, [1, 2, 4])))
    // A fixed sample: the same queries on every run and dialect.
    const queries = new Set<string>()
    for (const p of people) {
      const [a, b, c] = termsOf(p).map((term) => cutsOf(term, [2])[0] ?? term)
      if (c !== undefined) queries.add(`${c} ${a} ${b}`).add(`${a} ${b} ${c} ${p.phone.slice(3, 6)}`.trim())
    }
    for (let i = 0; i < 300; i++) {
      const pick = (k: number) => starts[(i * k * 7919 + k * 104_729) % starts.length]!
      queries.add(`${pick(1)} ${pick(2)} ${pick(3)}`)
    }
    for (const query of queries) await check(query)
  })
})
