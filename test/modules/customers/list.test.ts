import assert from 'node:assert/strict'
import { before, it } from 'node:test'
import { describeEachDialect } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { customerWithPassword, expectedHits, type SearchPerson, searchPerson } from './support.js'

interface Page {
  customers: Array<{ customer_id: string; customer_name: string; customer_email: string; phone: string }>
  next_cursor: string | null
}

describeEachDialect('list customers, page by page (console extension)', (t) => {
  const people: SearchPerson[] = []
  const list = (body?: unknown, auth?: string | null) => t.post('/v1/customer/list', body, auth === undefined ? {} : { auth })
  /** Every customer, in the order search answers (D-33), as list entries. */
  const all = () =>
    expectedHits(people, () => true, 1000).customer.map((hit) => ({ ...hit, phone: people.find((p) => p.id === hit.customer_id)!.phone }))
  /** Every page from the first, `limit` at a time. */
  async function pages(limit?: number): Promise<Page[]> {
    const read: Page[] = []
    let cursor: string | null | undefined
    do {
      const page = ok<Page>(await list({ ...(limit === undefined ? {} : { limit }), ...(cursor ? { cursor } : {}) }))
      read.push(page)
      cursor = page.next_cursor
    } while (cursor !== null && read.length < 100)
    return read
  }

  before(async () => {
    const names = ['John Smith', 'john smith', 'Zoë Adams', 'Émile Zola', 'Olga Van Der Berg', 'Åsa Ölund', 'Cher', '', 'Bob Smith-Jones']
    for (const [i, name] of names.entries()) {
      people.push(await searchPerson(t, name, `list${i}@example.com`, i % 2 === 0 ? `21255501${String(i).padStart(2, '0')}` : ''))
    }
  })

  it('should answer every customer once, in last name, first name, id order, page by page', async () => {
    for (const limit of [1, 2, 4, 9, 10, 100]) {
      const read = await pages(limit)
      assert.deepEqual(
        read.flatMap((page) => page.customers),
        all(),
        String(limit)
      )
      // A full last page says so at once: one more row than the page is read to know.
      assert.equal(read.length, Math.max(1, Math.ceil(people.length / limit)), String(limit))
      for (const page of read.slice(0, -1)) assert.equal(page.customers.length, limit)
      assert.equal(read.at(-1)!.next_cursor, null)
    }
  })

  it('should answer the exact shape: customers with id, name, e-mail and phone, and the next cursor', async () => {
    const response = await list({ limit: 2 })
    const page = ok<Page>(response)
    assert.deepEqual(Object.keys(page), ['customers', 'next_cursor'])
    for (const entry of page.customers) assert.deepEqual(Object.keys(entry), ['customer_id', 'customer_name', 'customer_email', 'phone'])
    assert.deepEqual(page.customers, all().slice(0, 2))
    assert.match(page.next_cursor!, /^[A-Za-z0-9_-]+$/)
    // No last name sorts first: the nameless customer, then Cher (first name only).
    assert.deepEqual(page.customers, [
      { customer_id: people[7]!.id, customer_name: '', customer_email: 'list7@example.com', phone: '' },
      { customer_id: people[6]!.id, customer_name: 'Cher', customer_email: 'list6@example.com', phone: '2125550106' }
    ])
  })

  it('should answer 20 a page by default, and take limit as a number or digit text', async () => {
    const more: SearchPerson[] = []
    for (let i = 0; i < 14; i++) more.push(await searchPerson(t, `Many${String(i).padStart(2, '0')} Quinn`, `quinn${i}@example.com`))
    people.push(...more)
    const first = ok<Page>(await list({}))
    assert.equal(first.customers.length, 20)
    assert.deepEqual(first.customers, all().slice(0, 20))
    const second = ok<Page>(await list({ cursor: first.next_cursor }))
    assert.deepEqual(second, { customers: all().slice(20), next_cursor: null })
    assert.deepEqual(ok<Page>(await list({ limit: '3' })).customers, all().slice(0, 3))
    assert.deepEqual(ok<Page>(await list({ limit: 100 })), { customers: all(), next_cursor: null })
  })

  it('should go on from where the page ended, even when that customer is renamed meanwhile', async () => {
    const first = ok<Page>(await list({ limit: 3 }))
    const last = people.find((p) => p.id === first.customers[2]!.customer_id)!
    const rest = all().slice(3)
    await t.post('/v1/customer/update', { customer: { customer_id: last.id, customer_name: 'Aaron Aardvark' } })
    Object.assign(last, { first: 'Aaron', last: 'Aardvark' })
    assert.deepEqual(ok<Page>(await list({ limit: 100, cursor: first.next_cursor })).customers, rest)
  })

  it('should answer 400 for a limit out of 1 to 100 or not a whole number', async () => {
    for (const limit of [0, 101, -1, '0', '101', 1.5, 'ten', '', null, true, [5]]) {
      problem(await list({ limit }), 'validation_failed', ['/limit'])
    }
  })

  it('should answer 400 for a cursor this API did not give out', async () => {
    const cursor = ok<Page>(await list({ limit: 1 })).next_cursor!
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url')
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
    const bad = [
      'nope',
      `${cursor}x`,
      cursor.slice(0, -2),
      encode({ last: '', first: '', id: 'cus_x' }),
      encode(['c2', ...decoded.slice(1)]),
      encode(['c1', '', '']),
      encode(['c1', 1, '', 'cus_x']),
      encode(['c1', '', '', '']),
      encode(['c1', 'a\u0000b', '', 'cus_x']),
      encode(['c1', 'a\ud800', '', 'cus_x']),
      Buffer.from(`${JSON.stringify(decoded)} `, 'utf8').toString('base64url'),
      Buffer.from('not json', 'utf8').toString('base64url')
    ]
    for (const value of bad) {
      const body = problem(await list({ cursor: value }), 'validation_failed', ['/cursor'])
      assert.deepEqual(body.errors, [{ field: '/cursor', message: 'is not a cursor this API gave out' }], value)
    }
    for (const value of ['', 42, null, ['x'], 'a\u0001', 'x'.repeat(8193)]) {
      problem(await list({ cursor: value }), 'validation_failed', ['/cursor'])
    }
  })

  it('should let staff and admin list, not app keys or customers, and never take "list" for a customer id', async () => {
    const customer = await customerWithPassword(t)
    people.push({ id: customer.id, email: customer.email, first: '', last: '', phone: '' })
    for (const auth of [t.auth.app, customer.auth]) {
      const body = problem(await list({}, auth), 'forbidden')
      assert.equal(body.status, 403)
    }
    problem(await list({}, null), 'unauthenticated')
    assert.deepEqual(ok<Page>(await list({ limit: 100 }, t.auth.admin)), { customers: all(), next_cursor: null })
    assert.deepEqual(ok<Page>(await list({ limit: 100 }, t.auth.staff)), { customers: all(), next_cursor: null })
    // The customer routes with an id are untouched.
    assert.equal(ok(await t.post(`/v1/customer/${customer.id}`, undefined, { auth: customer.auth })).customer_id, customer.id)
    problem(await t.post('/v1/customer/list', {}, { method: 'GET' }), 'method_not_allowed')
  })
})
