import assert from 'node:assert/strict'
import { before, it } from 'node:test'
import { describeEachDialect } from '../../helpers/app.js'
import { ok } from '../../helpers/assertions.js'
import { createCustomer, createOrder, createService } from '../../helpers/factories.js'

const BOARD = '/v1/transaction/board'

describeEachDialect('transaction board filter: by code, name words and e-mail (console)', (t) => {
  // Each order by the name of its customer.
  const orders: Record<string, string> = {}
  let closedCount = 0

  before(async () => {
    await createService(t, 'Board Filter', [{ description: 'One' }, { description: 'Two' }])
    const people: Array<[string, string, string, number]> = [
      ['John', 'Smith', 'jsmith@example.com', 12_345_678],
      ['Zoë', 'Ångström', 'zoe@example.com', 12_399_999],
      ['Olga', 'Van Der Berg', 'olga.v@example.com', 87_654_321],
      ['Joanna', 'Brown', 'brownie@example.org', 55_512_345]
    ]
    for (const [firstName, lastName, email, code] of people) {
      const customer = await createCustomer(t, { firstName, lastName, email })
      t.codes.next.push(code)
      orders[firstName] = (await createOrder(t, customer.id, 'Board Filter')).transaction_id
    }
    // John's second order, at step 2, and a closed one: closed orders are never cards.
    const john = (await t.post(`/v1/transaction/${orders.John}`)).json().customer_id
    t.codes.next.push(12_300_000)
    orders['John 2'] = (await createOrder(t, john, 'Board Filter')).transaction_id
    ok(await t.post('/v1/transaction/move', { customer_id: john, transaction_id: orders['John 2'] }))
    t.codes.next.push(12_345_000)
    const closed = (await createOrder(t, john, 'Board Filter')).transaction_id
    ok(await t.post('/v1/transaction/update', { transaction_id: closed, status: 'closed' }))
    closedCount = 1
  })

  /** The cards the filter keeps, as customer names of this suite, per step. */
  async function kept(filter?: string): Promise<string[][]> {
    const board = ok(
      await t.post(BOARD, filter === undefined ? { service_name: 'Board Filter' } : { service_name: 'Board Filter', filter })
    )
    assert.equal(board.closed_count, closedCount, 'closed_count does not depend on the filter')
    const byId = new Map(Object.entries(orders).map(([name, id]) => [id, name]))
    return board.steps.map((step: { open_count: number; orders: { transaction_id: string }[] }) => {
      assert.equal(step.open_count, step.orders.length)
      return step.orders.map((card) => byId.get(card.transaction_id)!).sort()
    })
  }

  it('should keep every open order without a filter, or with one that is empty once trimmed', async () => {
    const all = [['Joanna', 'John', 'Olga', 'Zoë'], ['John 2']]
    assert.deepEqual(await kept(), all)
    assert.deepEqual(await kept(''), all)
    assert.deepEqual(await kept(' \t\n '), all)
  })

  it('should keep orders whose code starts with the digits', async () => {
    assert.deepEqual(await kept('123'), [['John', 'Zoë'], ['John 2']])
    assert.deepEqual(await kept('1234'), [['John'], []])
    assert.deepEqual(await kept(' 12345678 '), [['John'], []])
    assert.deepEqual(await kept('876'), [['Olga'], []])
    // From the middle of a code: no.
    assert.deepEqual(await kept('345'), [[], []])
    assert.deepEqual(await kept('123456789'), [[], []])
  })

  it('should keep orders whose customer has a first or last name word starting with it, ignoring case and accents', async () => {
    assert.deepEqual(await kept('jo'), [['Joanna', 'John'], ['John 2']])
    assert.deepEqual(await kept('JOHN'), [['John'], ['John 2']])
    assert.deepEqual(await kept('smi'), [['John'], ['John 2']])
    assert.deepEqual(await kept('zoe'), [['Zoë'], []])
    assert.deepEqual(await kept('ZOË'), [['Zoë'], []])
    assert.deepEqual(await kept('angstr'), [['Zoë'], []])
    assert.deepEqual(await kept('berg'), [['Olga'], []])
    assert.deepEqual(await kept('der'), [['Olga'], []])
    // Each word of the filter starts some name word.
    assert.deepEqual(await kept('jo sm'), [['John'], ['John 2']])
    assert.deepEqual(await kept('smith john'), [['John'], ['John 2']])
    assert.deepEqual(await kept('olga van'), [['Olga'], []])
    assert.deepEqual(await kept('jo br'), [['Joanna'], []])
    assert.deepEqual(await kept('jo xy'), [[], []])
    // From the middle of a name: no.
    assert.deepEqual(await kept('mith'), [[], []])
    assert.deepEqual(await kept('ohn'), [[], []])
  })

  it("should keep orders whose customer's e-mail starts with it, ignoring case", async () => {
    assert.deepEqual(await kept('olga.v'), [['Olga'], []])
    assert.deepEqual(await kept('OLGA.V@EXAMPLE.COM'), [['Olga'], []])
    assert.deepEqual(await kept('brownie@'), [['Joanna'], []])
    // "bro" starts Brown and brownie@: one card either way.
    assert.deepEqual(await kept('bro'), [['Joanna'], []])
    assert.deepEqual(await kept('jsmith'), [['John'], ['John 2']])
    assert.deepEqual(await kept('example.com'), [[], []])
  })
})
