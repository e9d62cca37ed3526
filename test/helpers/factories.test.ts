import assert from 'node:assert/strict'
import { it } from 'node:test'
import { createCustomer as createOverHttp, updateCustomer } from '../modules/customers/support.js'
import { describeEachDialect } from './app.js'
import { ok } from './assertions.js'
import { createCustomer } from './factories.js'

/** Issue 26: a customer the shared factories insert is stored as the API stores one, search keys included (D-33). */
describeEachDialect('the shared factories write customers as the app does (issue 26)', (t) => {
  it('should keep the search keys of a name with accents and stroke letters as the API does, so search finds both', async () => {
    const inserted = await createCustomer(t, { firstName: 'Zoë', lastName: 'Łódź' })
    const written = (await createOverHttp(t)).customer_id as string
    await updateCustomer(t, { customer_id: written, customer_name: 'Zoë Łódź' })

    const keys = (id: string) =>
      t.database.db.selectFrom('customers').select(['first_name_lc', 'last_name_lc']).where('id', '=', id).executeTakeFirstOrThrow()
    assert.deepEqual(await keys(inserted.id), await keys(written))

    const found = ok(await t.post('/v1/customer/search', { query: 'zoe lodz' })) as { customer: { customer_id: string }[] }
    assert.deepEqual(found.customer.map((hit) => hit.customer_id).sort(), [inserted.id, written].sort())
  })
})
