import assert from 'node:assert/strict'
import { before, it } from 'node:test'
import { describeEachDialect } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { createCustomer, customerWithPassword, freshView, updateCustomer } from './support.js'

describeEachDialect('get customer (D-11, D-31)', (t) => {
  let owner: Awaited<ReturnType<typeof customerWithPassword>>
  let other: any

  before(async () => {
    owner = await customerWithPassword(t)
    other = await createCustomer(t, { zip: '02134' })
  })

  it('should answer the read shape, username being the e-mail and the address keys street, apartment, zipcode', async () => {
    const created = await createCustomer(t)
    await updateCustomer(t, {
      customer_id: created.customer_id,
      customer_name: 'Grace Brewster Hopper',
      phone: 2025550143,
      preference: 'No starch.\nFold shirts.',
      address: { street: '1 Navy Way', apartment: 'Apt 2', zip: '10001' }
    })
    assert.deepEqual(ok(await t.post(`/v1/customer/${created.customer_id}`)), {
      customer_id: created.customer_id,
      first_name: 'Grace',
      last_name: 'Brewster Hopper',
      username: created.email,
      email: created.email,
      phone: '2025550143',
      preference: 'No starch.\nFold shirts.',
      address: { street: '1 Navy Way', apartment: 'Apt 2', city: 'New York', state: 'NY', zipcode: '10001' }
    })
  })

  it('should ignore any body and content type sent (D-23)', async () => {
    const created = await createCustomer(t)
    const view = freshView(created)
    assert.deepEqual(ok(await t.post(`/v1/customer/${created.customer_id}`, { anything: true })), view)
    assert.deepEqual(
      ok(await t.post(`/v1/customer/${created.customer_id}`, undefined, { raw: 'not json', contentType: 'text/plain' })),
      view
    )
  })

  it('should answer 404 customer_not_found for an id that does not exist', async () => {
    const body = problem(await t.post('/v1/customer/cus_00000000000000000000000000'), 'customer_not_found')
    assert.equal(body.detail, 'No customer with this id exists.')
    problem(await t.post(`/v1/customer/${'x'.repeat(400)}`), 'customer_not_found')
    problem(await t.post('/v1/customer/%20'), 'customer_not_found')
    // PostgreSQL cannot compare text holding NUL: such an id is simply not found.
    problem(await t.post('/v1/customer/%00'), 'customer_not_found')
    problem(await t.post('/v1/customer/cus_%0A'), 'customer_not_found')
  })

  it('should let a customer read their own record with their e-mail and password', async () => {
    const body = ok(await t.post(`/v1/customer/${owner.id}`, undefined, { auth: owner.auth }))
    assert.deepEqual(body, freshView({ customer_id: owner.id, email: owner.email }))
  })

  it("should answer a customer asking for another customer's record exactly as for a missing id (D-11)", async () => {
    const foreign = await t.post(`/v1/customer/${other.customer_id}`, undefined, { auth: owner.auth })
    const missing = await t.post('/v1/customer/cus_00000000000000000000000000', undefined, { auth: owner.auth })
    const a = problem(foreign, 'customer_not_found')
    const b = problem(missing, 'customer_not_found')
    assert.deepEqual(a, b)
    assert.ok(!foreign.body.includes(other.email))
  })

  it('should never answer the password hash or card data', async () => {
    const response = await t.post(`/v1/customer/${owner.id}`)
    assert.deepEqual(Object.keys(ok(response)).sort(), [
      'address',
      'customer_id',
      'email',
      'first_name',
      'last_name',
      'phone',
      'preference',
      'username'
    ])
    assert.ok(!response.body.includes('scrypt'))
  })
})
