import assert from 'node:assert/strict'
import { before, it } from 'node:test'
import { describeEachDialect } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { expectedHits, matchesQuery, type SearchPerson, searchPerson, seedSearchPeople, updateCustomer } from './support.js'

describeEachDialect('search customers (D-33)', (t) => {
  let people: SearchPerson[] = []
  const search = (body: unknown) => t.post('/v1/customer/search', body)
  const names = async (query: string) => ok(await search({ query })).customer.map((c: { customer_name: string }) => c.customer_name)
  const expected = (query: string, limit = 20) => expectedHits(people, matchesQuery(query), limit)

  before(async () => {
    people = await seedSearchPeople(t)
  })

  it('should find by the start of any word of the first or last name', async () => {
    for (const query of ['berg', 'van der', 'der', 'VAN', 'van berg']) assert.deepEqual(await names(query), ['Olga Van Der Berg'], query)
    assert.deepEqual(await names('zoe'), ['Zoë Adams', 'Zoe Émond'])
    assert.deepEqual(await names('ann smith'), ['Mary Ann Smith'])
    assert.deepEqual(await names('mary smith'), ['Mary Ann Smith'])
    // A hyphen parts words too, and the whole double name is a word of its own.
    for (const query of ['jones', 'smith-jones', 'smith-j', 'bob jones']) assert.deepEqual(await names(query), ['Bob Smith-Jones'], query)
    // By last name ("ann smith", "johnson", "smith", "smith-jones"); the two John Smiths by id.
    const smiths = await names('smith')
    assert.deepEqual([smiths[0], smiths[1], smiths[4]], ['Mary Ann Smith', 'Smith Johnson', 'Bob Smith-Jones'])
    assert.deepEqual(smiths.slice(2, 4).sort(), ['John Smith', 'john smith'])
    assert.deepEqual(ok(await search({ query: 'smith' })), expected('smith'))
    for (const query of ['smi', 'SMI', 'Smith', 'jo', 'j', 'zo', 'é', 'ÉM', 'e', 'o', 'cher', 'ann', '  smi  ', 'jo sm', 'SMITH john']) {
      assert.deepEqual(ok(await search({ query })), expected(query), query)
    }
  })

  it('should find John Smith by "jo sm", "smi" and "john", in last name, first name, id order', async () => {
    const johnSmiths = people.filter((p) => p.first.toLowerCase() === 'john').map((p) => p.id)
    for (const query of ['jo sm', 'smi', 'john', 'john smith', 'sm jo']) {
      const hits = ok(await search({ query })).customer.map((h: { customer_id: string }) => h.customer_id)
      assert.deepEqual(
        hits.filter((id: string) => johnSmiths.includes(id)),
        [...johnSmiths].sort(),
        query
      )
    }
    // "jo" starts Johnson and Jones too: Smith Johnson, the John Smiths, Bob Smith-Jones, Johanna Smythe.
    const hits = await names('jo sm')
    assert.deepEqual([hits[0], ...hits.slice(3)], ['Smith Johnson', 'Bob Smith-Jones', 'Johanna Smythe'])
    assert.deepEqual(hits.slice(1, 3).sort(), ['John Smith', 'john smith'])
  })

  it('should not find by the middle of a word', async () => {
    for (const query of ['mith', 'erg', 'ander', 'oë', 'xample', 'example', '@example.com', 'mith jo']) {
      assert.deepEqual(ok(await search({ query })), { customer: [] }, query)
    }
  })

  it('should find by the start of the e-mail address, ignoring case', async () => {
    for (const query of ['olga.v', 'olga.v@', 'OLGA.V@EXAMPLE.COM', 'olga.v@example.com']) {
      assert.deepEqual(await names(query), ['Olga Van Der Berg'], query)
    }
    // Beyond the 8 code points kept of each term, the whole address decides.
    assert.deepEqual(await names('john.smith@example.com'), ['John Smith'])
    assert.deepEqual(await names('john.smith@example.org'), [])
    // A backtick is folded to an apostrophe in the query and in the stored term alike.
    for (const query of ['k`tick@example.com', "k'tick", 'k’tick']) assert.deepEqual(await names(query), ['Kay Tick'], query)
  })

  it('should find a number of 3 or more digits anywhere in the phone digits, and a shorter one never there', async () => {
    assert.deepEqual(await names('5550123'), ['John Smith'])
    assert.deepEqual(await names('2125550123'), ['John Smith'])
    assert.deepEqual(await names('0123'), ['John Smith'])
    assert.deepEqual(await names('555'), ['Jo Brown', 'John Smith', 'Bob Smith-Jones', 'Olga Van Der Berg'])
    assert.deepEqual(await names('9876'), ['Bob Smith-Jones'])
    assert.deepEqual(await names('12125550123'), [])
    // "55" is in several phones, but two digits match the start of a name word or e-mail only.
    assert.deepEqual(await names('55'), ['Pat Digits'])
    assert.deepEqual(await names('12'), [])
    assert.deepEqual(await names('551'), ['Pat Digits'])
    // Only digits are a number: a grouped number is one word, matched against names and e-mail.
    assert.deepEqual(await names('555-0123'), [])
    for (const query of ['5550123', '555', '0123', '55', '12', '55 123', '5 555', '212 555', '555 olga']) {
      assert.deepEqual(ok(await search({ query })), expected(query), query)
    }
  })

  it('should need every word to match, each through any term of the customer', async () => {
    assert.deepEqual(await names('olga 4155'), ['Olga Van Der Berg'])
    assert.deepEqual(await names('berg olga.v'), ['Olga Van Der Berg'])
    assert.deepEqual(await names('olga van der berg'), ['Olga Van Der Berg'])
    assert.deepEqual(await names('olga van berg 555 0100'), ['Olga Van Der Berg'])
    assert.deepEqual(await names('john smith x'), [])
    assert.deepEqual(await names('olga 5550123'), [])
    for (const query of ['jo jo', 'ann mary', 'zo ém', 'é z', 'smith 555', 'smi jo 212', 'j s 5']) {
      assert.deepEqual(ok(await search({ query })), expected(query), query)
    }
  })

  it('should answer each customer once, however many of their terms a word matches', async () => {
    const anna = people.find((p) => p.first === 'Anna')!
    for (const query of ['ann', 'anna', 'anna annabelle', 'annabelle ann', 'a', 'an an']) {
      const hits = ok(await search({ query, limit: 100 })).customer.map((h: { customer_id: string }) => h.customer_id)
      assert.equal(hits.filter((id: string) => id === anna.id).length, 1, query)
      assert.equal(new Set(hits).size, hits.length, query)
      assert.deepEqual(ok(await search({ query, limit: 100 })), expected(query, 100), query)
    }
  })

  it('should treat a word that starts another word as met by it', async () => {
    assert.deepEqual(ok(await search({ query: 'jo john' })), ok(await search({ query: 'john' })))
    assert.deepEqual(ok(await search({ query: 'j jo joh smi sm' })), ok(await search({ query: 'joh smi' })))
  })

  it('should join first and last name with one space, and answer the first name alone when there is no last name', async () => {
    const cher = people.find((p) => p.first === 'Cher')!
    assert.deepEqual(ok(await search({ query: 'cher' })), {
      customer: [{ customer_id: cher.id, customer_name: 'Cher', customer_email: 'cher@example.com' }]
    })
    // A customer without a name is found by the e-mail alone.
    const nameless = people.find((p) => p.first === '')!
    assert.deepEqual(ok(await search({ query: 'nameless' })), {
      customer: [{ customer_id: nameless.id, customer_name: '', customer_email: 'nameless@example.com' }]
    })
  })

  it('should answer at most limit hits, 20 by default, and take limit as a number or digit text', async () => {
    assert.deepEqual(ok(await search({ query: 'j', limit: 2 })), expected('j', 2))
    assert.deepEqual(ok(await search({ query: 'j', limit: '3' })), expected('j', 3))
    assert.deepEqual(ok(await search({ query: 'j', limit: 100 })), expected('j', 100))
    assert.deepEqual(ok(await search({ query: 'jo s', limit: 1 })), expected('jo s', 1))
    assert.equal(ok(await search({ query: 'j', limit: 1 })).customer.length, 1)
    for (let i = 0; i < 21; i++) people.push(await searchPerson(t, `Many${String(i).padStart(2, '0')} Quinn`, `quinn${i}@example.com`))
    const body = ok(await search({ query: 'quinn' }))
    assert.equal(body.customer.length, 20)
    assert.deepEqual(body, expected('quinn'))
    for (const [query, limit] of [
      ['qu', 21],
      ['many1 qu', 100],
      ['quinn many', 5],
      ['quinn many', 20],
      ['quinn many', 21]
    ] as const) {
      assert.deepEqual(ok(await search({ query, limit })), expected(query, limit), `${query} ${limit}`)
    }
  })

  it('should follow changes of names, e-mail and phone at once', async () => {
    const anna = people.find((p) => p.first === 'Anna')!
    await updateCustomer(t, { customer_id: anna.id, customer_name: 'Anna Xylophone', email: 'x.anna@example.com', phone: '7185550000' })
    Object.assign(anna, { last: 'Xylophone', email: 'x.anna@example.com', phone: '7185550000' })
    for (const query of ['annabelle', 'anna.annabelle', 'k', 'xyl', 'x.anna', '718', '5550000', 'anna 0000', 'a x']) {
      assert.deepEqual(ok(await search({ query, limit: 100 })), expected(query, 100), query)
    }
    assert.deepEqual(await names('annabelle'), [])
    await updateCustomer(t, { customer_id: anna.id, phone: '' })
    anna.phone = ''
    assert.deepEqual(await names('7185550000'), [])
  })

  it('should answer 400 for an empty or blank query', async () => {
    for (const query of ['', '   ', '\t', ' \n\t ']) {
      const body = problem(await search({ query }), 'validation_failed', ['/query'])
      assert.deepEqual(body.errors, [{ field: '/query', message: 'must not be empty' }])
    }
    // Tabs and line breaks are white space: trimmed, or words apart.
    assert.deepEqual(ok(await search({ query: 'jo\tsm\n' })), ok(await search({ query: 'jo sm' })))
    // Invisible characters alone fold to no word: nobody, not an error.
    assert.deepEqual(ok(await search({ query: '\u200b' })), { customer: [] })
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
    ok(await search({ query: 'a '.repeat(50).trim() }))
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

  it('should read the hits with one statement, for one word or several', async () => {
    for (const query of ['jo', 'jo sm', 'olga van der berg 555']) {
      const { queries } = await t.countQueries(() => search({ query }))
      // Credentials (the API key) are looked up first; the search itself is one statement.
      assert.equal(queries.filter((q) => q.includes('customer_search_terms')).length, 1, query)
    }
  })
})
