import assert from 'node:assert/strict'
import { before, it } from 'node:test'
import { nameKey } from '../../../src/modules/customers/name-key.js'
import { describeEachDialect } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { createCustomer, updateCustomer } from './support.js'

// D-33's "ignoring case", and accents: what names and words are compared by (its own cases: rules.test.ts).
const fold = nameKey

interface Person {
  id: string
  email: string
  first: string
  last: string
}

describeEachDialect('search customers (D-33)', (t) => {
  const people: Person[] = []
  const search = (body: unknown) => t.post('/v1/customer/search', body)

  /** The expected hits: people matching `filter`, ordered by last name, first name (folded) and id. */
  function expected(filter: (p: Person) => boolean, limit = 20) {
    const byKey = (a: Person, b: Person) => {
      const keys = (p: Person) => [fold(p.last), fold(p.first), p.id]
      const [x, y] = [keys(a), keys(b)]
      for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return Buffer.compare(Buffer.from(x[i]!), Buffer.from(y[i]!))
      return 0
    }
    return {
      customer: people
        .filter(filter)
        .sort(byKey)
        .slice(0, limit)
        .map((p) => ({ customer_id: p.id, customer_name: `${p.first} ${p.last}`.trim(), customer_email: p.email }))
    }
  }

  const starts = (p: Person, word: string) => fold(p.first).startsWith(word) || fold(p.last).startsWith(word)
  /** D-33 as written: every word of the query starts the first or the last name, ignoring case (and accents). */
  const matches = (query: string) => (p: Person) =>
    fold(query)
      .split(/\s+/)
      .filter((w) => w !== '')
      .every((w) => starts(p, w))

  before(async () => {
    const names = [
      'John Smith',
      'john smith', // same name, another customer: ordered by id
      'Johanna Smythe',
      'Jo Brown',
      'Smith Johnson', // first name Smith
      'Mary Ann Smith', // last name "Ann Smith"
      'Émile Zola',
      'Zoe Émond',
      'Cher',
      'Anna Karenina',
      'Bob van der Berg',
      // Longer than the 8 code points of a kept prefix (migration 0008), sharing those 8.
      'Maximilian Schwarzenegger',
      'Maximiliane Schwarzkopf',
      'Maximilia Schwarzer',
      // Outside the Basic Multilingual Plane: prefixes count code points, not UTF-16 units.
      '𐐀lice Ünal',
      // Case and accents folded further than lower-casing does.
      'José García',
      'İsmail Yıldız',
      'Lena Straße',
      'Åsa Ölund',
      'Seamus O´Brien',
      'Łukasz Łódź'
    ]
    for (const name of names) {
      const created = await createCustomer(t)
      const view = await updateCustomer(t, { customer_id: created.customer_id, customer_name: name })
      people.push({ id: created.customer_id, email: created.email, first: view.first_name, last: view.last_name })
    }
    // A customer without a name is never a hit.
    const nameless = await createCustomer(t)
    people.push({ id: nameless.customer_id, email: nameless.email, first: '', last: '' })
  })

  it('should find by the start of the first or the last name, ignoring case, in last name, first name, id order', async () => {
    for (const query of ['smi', 'SMI', 'Smith', 'jo', 'j', 'zo', 'é', 'ÉM', 'e', 'o', 'cher', 'ann', 'van', '  smi  ']) {
      assert.deepEqual(ok(await search({ query })), expected(matches(query)), query)
    }
  })

  it('should need every word to start the first or the last name ("jo sm" finds John Smith)', async () => {
    const body = ok(await search({ query: 'jo sm' }))
    assert.deepEqual(body, expected(matches('jo sm')))
    const johns = people
      .filter((p) => p.first.toLowerCase() === 'john')
      .map((p) => p.id)
      .sort()
    assert.deepEqual(
      body.customer.map((h: { customer_id: string; customer_name: string }) =>
        h.customer_name === 'Smith Johnson' || h.customer_name === 'Johanna Smythe' ? h.customer_name : h.customer_id
      ),
      ['Smith Johnson', ...johns, 'Johanna Smythe']
    )
    for (const query of ['SMITH john', 'smythe jo', 'jo jo', 'ann mary', 'zo ém', 'é z']) {
      assert.deepEqual(ok(await search({ query })), expected(matches(query)), query)
    }
  })

  it('should match the start of a name only, not a word inside it', async () => {
    assert.deepEqual(ok(await search({ query: 'mith' })), { customer: [] })
    assert.deepEqual(ok(await search({ query: 'berg' })), { customer: [] })
    // "Ann Smith" is Mary's last name: it starts with "ann", not with "smith".
    assert.deepEqual(ok(await search({ query: 'mary smith' })), { customer: [] })
    assert.deepEqual(
      ok(await search({ query: 'mary ann' })),
      expected((p) => p.first === 'Mary')
    )
    assert.equal(ok(await search({ query: 'mary ann' })).customer.length, 1)
  })

  it('should treat a word that starts another word as met by it', async () => {
    assert.deepEqual(ok(await search({ query: 'jo john' })), ok(await search({ query: 'john' })))
    assert.deepEqual(ok(await search({ query: 'j jo joh smi sm' })), ok(await search({ query: 'joh smi' })))
  })

  it('should find nobody for three words none of which starts another, as no name can start with two of them', async () => {
    assert.deepEqual(ok(await search({ query: 'john smith x' })), { customer: [] })
    assert.deepEqual(expected(matches('john smith x')), { customer: [] })
  })

  it('should join first and last name with one space, and answer the first name alone when there is no last name', async () => {
    const body = ok(await search({ query: 'cher' }))
    const cher = people.find((p) => p.first === 'Cher')!
    assert.deepEqual(body, { customer: [{ customer_id: cher.id, customer_name: 'Cher', customer_email: cher.email }] })
  })

  it('should answer at most limit hits, 20 by default, and take limit as a number or digit text', async () => {
    assert.deepEqual(ok(await search({ query: 'j', limit: 2 })), expected(matches('j'), 2))
    assert.deepEqual(ok(await search({ query: 'j', limit: '3' })), expected(matches('j'), 3))
    assert.deepEqual(ok(await search({ query: 'j', limit: 100 })), expected(matches('j'), 100))
    assert.equal(ok(await search({ query: 'j', limit: 1 })).customer.length, 1)
  })

  it('should answer 20 hits at most without a limit', async () => {
    for (let i = 0; i < 21; i++) {
      const created = await createCustomer(t)
      const view = await updateCustomer(t, { customer_id: created.customer_id, customer_name: `Many${String(i).padStart(2, '0')} Quinn` })
      people.push({ id: created.customer_id, email: created.email, first: view.first_name, last: view.last_name })
    }
    const body = ok(await search({ query: 'quinn' }))
    assert.equal(body.customer.length, 20)
    assert.deepEqual(body, expected(matches('quinn')))
    assert.deepEqual(ok(await search({ query: 'qu', limit: 21 })), expected(matches('qu'), 21))
    assert.deepEqual(ok(await search({ query: 'many1 qu', limit: 100 })), expected(matches('many1 qu'), 100))
  })

  it('should follow renames at once', async () => {
    const anna = people.find((p) => p.first === 'Anna')!
    await updateCustomer(t, { customer_id: anna.id, customer_name: 'Anna Xylophone' })
    anna.last = 'Xylophone'
    assert.deepEqual(ok(await search({ query: 'karenina' })), { customer: [] })
    // Every prefix of the old last name is gone, every prefix of the new one there (migration 0008).
    for (const word of ['k', 'ka', 'karenin', 'karenina'])
      assert.deepEqual(ok(await search({ query: word })), expected(matches(word)), word)
    // A changed e-mail shows in the hits at once too.
    await updateCustomer(t, { customer_id: anna.id, email: `renamed.${anna.email}` })
    anna.email = `renamed.${anna.email}`
    assert.deepEqual(ok(await search({ query: 'xyl' })), {
      customer: [{ customer_id: anna.id, customer_name: 'Anna Xylophone', customer_email: anna.email }]
    })
    assert.deepEqual(ok(await search({ query: 'xyl' })), {
      customer: [{ customer_id: anna.id, customer_name: 'Anna Xylophone', customer_email: anna.email }]
    })
  })

  it('should answer 400 for an empty or blank query', async () => {
    for (const query of ['', '   ']) {
      const body = problem(await search({ query }), 'validation_failed', ['/query'])
      assert.deepEqual(body.errors, [{ field: '/query', message: 'must not be empty' }])
    }
    // Tabs and line breaks are white space: trimmed, or words apart.
    for (const query of ['\t', ' \n\t ']) {
      const body = problem(await search({ query }), 'validation_failed', ['/query'])
      assert.deepEqual(body.errors, [{ field: '/query', message: 'must not be empty' }])
    }
    assert.deepEqual(ok(await search({ query: 'jo\tsm\n' })), ok(await search({ query: 'jo sm' })))
    const control = problem(await search({ query: 'jo\u0001' }), 'validation_failed', ['/query'])
    assert.deepEqual(control.errors, [
      { field: '/query', message: 'must not contain control characters other than tabs and line breaks, nor unpaired surrogates' }
    ])
  })

  it('should answer 400 for a query over 100 characters, of the wrong type, with control characters, or missing', async () => {
    ok(await search({ query: 'q'.repeat(100) }))
    // D-33 trims first: spaces around the query do not count toward D-70's 100 characters.
    ok(await search({ query: ` ${'q'.repeat(100)}  ` }))
    ok(await search({ query: '😀'.repeat(100) }))
    // Counted composed (NFC): é sent as e and a combining accent is one character.
    ok(await search({ query: 'é'.normalize('NFD').repeat(100) }))
    problem(await search({ query: 'é'.normalize('NFD').repeat(101) }), 'validation_failed', ['/query'])
    for (const query of ['q'.repeat(101), ` ${'q'.repeat(101)} `, '😀'.repeat(101), 'q'.repeat(5000)]) {
      const long = problem(await search({ query }), 'validation_failed', ['/query'])
      assert.deepEqual(long.errors, [{ field: '/query', message: 'must be at most 100 characters' }])
    }
    problem(await search({ query: 42 }), 'validation_failed', ['/query'])
    problem(await search({ query: ['jo'] }), 'validation_failed', ['/query'])
    problem(await search({ query: 'jo\u0000' }), 'validation_failed', ['/query'])
    problem(await search({}), 'validation_failed', ['/query'])
  })

  it('should answer 400 for a limit out of 1 to 100 or not a whole number', async () => {
    for (const limit of [0, 101, -1, '0', '101', 1.5, 'ten', '', null, true]) {
      problem(await search({ query: 'jo', limit }), 'validation_failed', ['/limit'])
    }
  })

  it('should find exactly the customers each prefix of each name starts, one to twelve code points long', async () => {
    const words = new Set<string>()
    for (const p of people) {
      for (const name of [p.first, p.last]) {
        const points = [...fold(name)]
        for (let n = 1; n <= Math.min(points.length, 12); n++) words.add(points.slice(0, n).join(''))
      }
    }
    assert.ok(words.size > 100)
    for (const word of words) {
      assert.deepEqual(ok(await search({ query: word, limit: 100 })), expected(matches(word), 100), word)
    }
  })

  it('should find exactly the customers two prefixes start, one of the first name and one of the last, either way round', async () => {
    const queries = new Set<string>()
    const cuts = (name: string) => {
      const points = [...fold(name)]
      return [...new Set([1, 2, 3, 8, 9, points.length].filter((n) => n >= 1 && n <= points.length))].map((n) =>
        points.slice(0, n).join('')
      )
    }
    for (const p of people) {
      for (const a of cuts(p.first)) for (const b of cuts(p.last)) queries.add(`${a} ${b}`).add(`${b} ${a}`)
    }
    assert.ok(queries.size > 200)
    for (const query of queries) {
      assert.deepEqual(ok(await search({ query, limit: 100 })), expected(matches(query), 100), query)
    }
  })

  it('should tell names apart after the eighth code point', async () => {
    const names = async (query: string) => ok(await search({ query })).customer.map((c: { customer_name: string }) => c.customer_name)
    assert.deepEqual(await names('maximilian'), ['Maximilian Schwarzenegger', 'Maximiliane Schwarzkopf'])
    assert.deepEqual(await names('schwarzen'), ['Maximilian Schwarzenegger'])
    assert.deepEqual(await names('schwarzk'), ['Maximiliane Schwarzkopf'])
    assert.deepEqual(await names('schwarz'), ['Maximilian Schwarzenegger', 'Maximilia Schwarzer', 'Maximiliane Schwarzkopf'])
    assert.deepEqual(await names('maximiliane schwarzkopf'), ['Maximiliane Schwarzkopf'])
    assert.deepEqual(await names('𐐨'), ['𐐀lice Ünal'])
    assert.deepEqual(await names('ü'), ['𐐀lice Ünal'])
  })

  it('should fold accents and case beyond lower-casing, and sort accented names among the plain ones', async () => {
    const names = async (query: string) => ok(await search({ query })).customer.map((c: { customer_name: string }) => c.customer_name)
    for (const query of ['jose', 'JOSÉ', 'garcia', 'josé garcía', 'jose GARCIA'])
      assert.deepEqual(await names(query), ['José García'], query)
    for (const query of ['ismail', 'İSMAİL', 'yildiz', 'YILDIZ', 'yıldız']) assert.deepEqual(await names(query), ['İsmail Yıldız'], query)
    for (const query of ['strasse', 'STRASSE', 'straße', 'STRAẞE']) assert.deepEqual(await names(query), ['Lena Straße'], query)
    for (const query of ["o'b", 'O´Brien', 'o’brien', "seamus o'br"]) assert.deepEqual(await names(query), ['Seamus O´Brien'], query)
    for (const query of ['lukasz', 'ŁÓDŹ', 'lodz lu']) assert.deepEqual(await names(query), ['Łukasz Łódź'], query)
    for (const query of ['o', 'ö', 'Ö']) assert.deepEqual(await names(query), ['Seamus O´Brien', 'Åsa Ölund'], query)
    for (const query of ['ol', 'öl', 'ØL']) assert.deepEqual(await names(query), ['Åsa Ölund'], query)
    // By last name: Émond and Ölund among the e's and o's, not after Zola.
    assert.deepEqual(await names('zo'), ['Zoe Émond', 'Émile Zola'])
    assert.deepEqual(await names('e'), ['Zoe Émond', 'Émile Zola'])
    assert.deepEqual(await names('as'), ['Åsa Ölund'])
  })

  it('should read the hits with one query', async () => {
    const { queries } = await t.countQueries(() => search({ query: 'jo sm' }))
    // Credentials (the API key) are looked up first; the search itself is one statement.
    assert.equal(queries.filter((q) => q.includes('first_name_lc')).length, 1)
  })
})
