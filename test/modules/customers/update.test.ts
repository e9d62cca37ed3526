import assert from 'node:assert/strict'
import { it } from 'node:test'
import { describeEachDialect } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { createCustomer, customerWithPassword, freshView, getCustomer, storedCustomer, uniqueEmail, updateCustomer } from './support.js'

describeEachDialect('update customer (D-32)', (t) => {
  const update = (customer: unknown, headers: Record<string, string> = {}) => t.post('/v1/customer/update', { customer }, { headers })

  /** A customer with every field set, and its read shape. */
  async function fullCustomer(): Promise<{ id: string; view: any }> {
    const created = await createCustomer(t)
    const view = await updateCustomer(t, {
      customer_id: created.customer_id,
      customer_name: 'Ada King Lovelace',
      phone: '+44 20 7946 0958',
      preference: 'Hang dry',
      address: { street: '12 St James Sq', apartment: 'Flat 3', zip: '02134' }
    })
    return { id: created.customer_id, view }
  }

  it('should answer the read shape reflecting every field sent', async () => {
    const { id, view } = await fullCustomer()
    const row = await storedCustomer(t, id)
    assert.deepEqual(view, {
      customer_id: id,
      first_name: 'Ada',
      last_name: 'King Lovelace',
      username: row.email,
      email: row.email,
      phone: '442079460958',
      preference: 'Hang dry',
      address: { street: '12 St James Sq', apartment: 'Flat 3', city: 'Allston', state: 'MA', zipcode: '02134' }
    })
    assert.deepEqual(await getCustomer(t, id), view)
    // The lower-cased copies search compares move with the names (D-33).
    assert.equal(row.first_name_lc, 'ada')
    assert.equal(row.last_name_lc, 'king lovelace')
  })

  it('should leave fields that are left out unchanged', async () => {
    const { id, view } = await fullCustomer()
    assert.deepEqual(await updateCustomer(t, { customer_id: id }), view)
    assert.deepEqual(await updateCustomer(t, { customer_id: id, phone: 5551234567 }), { ...view, phone: '5551234567' })
    assert.deepEqual(await updateCustomer(t, { customer_id: id, address: { apartment: 'Flat 4' } }), {
      ...view,
      phone: '5551234567',
      address: { ...view.address, apartment: 'Flat 4' }
    })
    assert.deepEqual(await updateCustomer(t, { customer_id: id, address: {} }), {
      ...view,
      phone: '5551234567',
      address: { ...view.address, apartment: 'Flat 4' }
    })
  })

  it('should clear a text field sent as an empty string', async () => {
    const { id, view } = await fullCustomer()
    const cleared = await updateCustomer(t, {
      customer_id: id,
      customer_name: '',
      phone: '',
      preference: '',
      address: { street: '', apartment: '', zip: '' }
    })
    assert.deepEqual(cleared, {
      ...view,
      first_name: '',
      last_name: '',
      phone: '',
      preference: '',
      address: { street: '', apartment: '', city: '', state: '', zipcode: '' }
    })
    const row = await storedCustomer(t, id)
    assert.equal(row.first_name_lc, '')
    assert.equal(row.last_name_lc, '')
  })

  it('should split customer_name at the first space: first word, then the rest', async () => {
    const { id } = await fullCustomer()
    const cases: Array<[string, string, string]> = [
      ['John Smith', 'John', 'Smith'],
      ['  Mary   Ann  Smith ', 'Mary', 'Ann Smith'],
      ['Cher', 'Cher', ''],
      ['Émile Zola', 'Émile', 'Zola']
    ]
    for (const [name, first, last] of cases) {
      const view = await updateCustomer(t, { customer_id: id, customer_name: name })
      assert.deepEqual([view.first_name, view.last_name], [first, last], name)
    }
  })

  it('should take phone as a number or digit text and keep 7 to 15 digits', async () => {
    const { id } = await fullCustomer()
    assert.equal((await updateCustomer(t, { customer_id: id, phone: 1234567 })).phone, '1234567')
    assert.equal((await updateCustomer(t, { customer_id: id, phone: 123456789012345 })).phone, '123456789012345')
    assert.equal((await updateCustomer(t, { customer_id: id, phone: '(555) 123-4567' })).phone, '5551234567')
    assert.equal((await updateCustomer(t, { customer_id: id, phone: '0044 20 7946 0958' })).phone, '00442079460958')
  })

  it('should answer 400 for a phone of the wrong length, form or type', async () => {
    const { id, view } = await fullCustomer()
    for (const phone of [123456, 1234567890123456, '123456', '1234567890123456']) {
      const body = problem(await update({ customer_id: id, phone }), 'validation_failed', ['/customer/phone'])
      assert.deepEqual(body.errors, [{ field: '/customer/phone', message: 'must have 7 to 15 digits' }])
    }
    for (const phone of ['call me', '555-CALL-NOW', 5551234567.5, -5551234567, true, null, [5551234567], 'x'.repeat(31)]) {
      problem(await update({ customer_id: id, phone }), 'validation_failed', ['/customer/phone'])
    }
    assert.deepEqual(await getCustomer(t, id), view)
  })

  it('should accept preference or preferences, and both when they agree', async () => {
    const { id } = await fullCustomer()
    assert.equal((await updateCustomer(t, { customer_id: id, preference: 'Starch' })).preference, 'Starch')
    assert.equal((await updateCustomer(t, { customer_id: id, preferences: 'No starch' })).preference, 'No starch')
    assert.equal(
      (await updateCustomer(t, { customer_id: id, preference: 'Tabs\tand\r\nlines', preferences: 'Tabs\tand\r\nlines' })).preference,
      'Tabs\tand\r\nlines'
    )
    assert.equal((await updateCustomer(t, { customer_id: id, preference: 'p'.repeat(1000) })).preference, 'p'.repeat(1000))
  })

  it('should answer 400 when preference and preferences differ, or are too long, or hold control characters', async () => {
    const { id, view } = await fullCustomer()
    const body = problem(await update({ customer_id: id, preference: 'a', preferences: 'b' }), 'validation_failed', [
      '/customer/preferences'
    ])
    assert.deepEqual(body.errors, [{ field: '/customer/preferences', message: 'must equal preference when both are sent' }])
    problem(await update({ customer_id: id, preference: 'p'.repeat(1001) }), 'validation_failed', ['/customer/preference'])
    problem(await update({ customer_id: id, preferences: 'p'.repeat(1001) }), 'validation_failed', ['/customer/preferences'])
    problem(await update({ customer_id: id, preference: 'nul\u0000' }), 'validation_failed', ['/customer/preference'])
    problem(await update({ customer_id: id, preference: 42 }), 'validation_failed', ['/customer/preference'])
    assert.deepEqual(await getCustomer(t, id), view)
  })

  it('should re-derive city and state from a new zip, and answer unknown_zip or 400 for a bad one', async () => {
    const { id, view } = await fullCustomer()
    const moved = await updateCustomer(t, { customer_id: id, address: { zip: '90210-1234' } })
    assert.deepEqual(moved.address, { ...view.address, city: 'Beverly Hills', state: 'CA', zipcode: '90210-1234' })
    problem(await update({ customer_id: id, address: { zip: '00000' } }), 'unknown_zip', ['/customer/address/zip'])
    for (const zip of ['123', '1234a', 90210, null])
      problem(await update({ customer_id: id, address: { zip } }), 'validation_failed', ['/customer/address/zip'])
    assert.deepEqual(await getCustomer(t, id), moved)
  })

  it("should take zipcode, the read shape's name, as another name for zip, refusing the two when they differ", async () => {
    const { id, view } = await fullCustomer()
    // What a client read, sent back with one change, is understood whole.
    const moved = await updateCustomer(t, { customer_id: id, address: { ...view.address, zipcode: '10001' } })
    assert.deepEqual(moved.address, { ...view.address, city: 'New York', state: 'NY', zipcode: '10001' })
    assert.equal((await updateCustomer(t, { customer_id: id, address: { zip: '90210', zipcode: '90210' } })).address.zipcode, '90210')
    const both = problem(await update({ customer_id: id, address: { zip: '90210', zipcode: '10001' } }), 'validation_failed', [
      '/customer/address/zipcode'
    ])
    assert.deepEqual(both.errors, [{ field: '/customer/address/zipcode', message: 'must equal zip when both are sent' }])
    problem(await update({ customer_id: id, address: { zipcode: '00000' } }), 'unknown_zip', ['/customer/address/zipcode'])
    for (const zipcode of ['123', 90210, null])
      problem(await update({ customer_id: id, address: { zipcode } }), 'validation_failed', ['/customer/address/zipcode'])
    const cleared = await updateCustomer(t, { customer_id: id, address: { zipcode: '' } })
    assert.deepEqual([cleared.address.zipcode, cleared.address.city, cleared.address.state], ['', '', ''])
  })

  it('should answer 400 for names, streets and apartments too long or with control characters', async () => {
    const { id, view } = await fullCustomer()
    // D-70 "names 100": the full name the wire carries, not each of its parts.
    const first = problem(await update({ customer_id: id, customer_name: `${'a'.repeat(95)} Smith` }), 'validation_failed', [
      '/customer/customer_name'
    ])
    assert.deepEqual(first.errors, [{ field: '/customer/customer_name', message: 'must be at most 100 characters' }])
    problem(await update({ customer_id: id, customer_name: `John ${'b'.repeat(96)}` }), 'validation_failed', ['/customer/customer_name'])
    problem(await update({ customer_id: id, customer_name: 'a'.repeat(101) }), 'validation_failed', ['/customer/customer_name'])
    const long = problem(await update({ customer_id: id, customer_name: 'x'.repeat(5000) }), 'validation_failed', [
      '/customer/customer_name'
    ])
    assert.deepEqual(long.errors, [{ field: '/customer/customer_name', message: 'must be at most 100 characters' }])
    problem(await update({ customer_id: id, customer_name: 'John\u0000Smith' }), 'validation_failed', ['/customer/customer_name'])
    problem(await update({ customer_id: id, customer_name: 7 }), 'validation_failed', ['/customer/customer_name'])
    problem(await update({ customer_id: id, address: { street: 's'.repeat(201) } }), 'validation_failed', ['/customer/address/street'])
    problem(await update({ customer_id: id, address: { apartment: 'a'.repeat(201) } }), 'validation_failed', [
      '/customer/address/apartment'
    ])
    problem(await update({ customer_id: id, address: { street: 'line\nbreak' } }), 'validation_failed', ['/customer/address/street'])
    problem(await update({ customer_id: id, address: 'Main St' }), 'validation_failed', ['/customer/address'])
    assert.deepEqual(await getCustomer(t, id), view)
    // The limits themselves are allowed.
    const longest = await updateCustomer(t, {
      customer_id: id,
      customer_name: `${'a'.repeat(49)} ${'b'.repeat(50)}`,
      address: { street: 's'.repeat(200) }
    })
    assert.equal(longest.first_name.length + longest.last_name.length + longest.address.street.length, 299)
    // Spaces around and between the words are not counted: they are not stored.
    const padded = await updateCustomer(t, { customer_id: id, customer_name: `  ${'c'.repeat(50)}   ${'d'.repeat(49)}  ` })
    assert.deepEqual([padded.first_name, padded.last_name], ['c'.repeat(50), 'd'.repeat(49)])
  })

  it('should change the e-mail (and with it the username and the sign-in name) to an unused address', async () => {
    const customer = await customerWithPassword(t)
    const email = uniqueEmail('moved')
    const view = await updateCustomer(t, { customer_id: customer.id, email: ` ${email.toUpperCase()} ` })
    assert.equal(view.email, email)
    assert.equal(view.username, email)
    ok(await t.post('/v1/customer/signin', { email, password: customer.password }))
    problem(await t.post('/v1/customer/signin', { email: customer.email, password: customer.password }), 'invalid_login')
    // Its own address again, in another case, is not taken.
    assert.equal((await updateCustomer(t, { customer_id: customer.id, email: email.toUpperCase() })).email, email)
  })

  it("should answer 409 email_taken for another customer's e-mail and 400 for a malformed one", async () => {
    const { id, view } = await fullCustomer()
    const other = await createCustomer(t)
    problem(await update({ customer_id: id, email: other.email.toUpperCase() }), 'email_taken')
    for (const email of ['nope', '', 'a@b']) problem(await update({ customer_id: id, email }), 'validation_failed', ['/customer/email'])
    problem(await update({ customer_id: id, email: null }), 'validation_failed', ['/customer/email'])
    assert.deepEqual(await getCustomer(t, id), view)
  })

  it('should change nothing at all when any part of an update is refused', async () => {
    const { id, view } = await fullCustomer()
    const before = await storedCustomer(t, id)
    const other = await createCustomer(t)
    const good = { customer_id: id, customer_name: 'Changed Name', preference: 'changed', address: { street: 'Changed St', zip: '10001' } }
    problem(await update({ ...good, phone: '12' }), 'validation_failed', ['/customer/phone'])
    problem(await update({ ...good, email: other.email }), 'email_taken')
    problem(await update({ ...good, address: { street: 'Changed St', zip: '00000' } }), 'unknown_zip', ['/customer/address/zip'])
    problem(await update({ ...good, creditcard: { cc_name: 'A B' } }), 'partial_card', [
      '/customer/creditcard/cc_number',
      '/customer/creditcard/cc_expiration',
      '/customer/creditcard/cc_cvv',
      '/customer/creditcard/cc_zip'
    ])
    problem(
      await update({
        ...good,
        creditcard: { cc_name: 'A B', cc_number: 4111111111111112, cc_expiration: '12/2040', cc_cvv: 123, cc_zip: '02134' }
      }),
      'invalid_card',
      ['/customer/creditcard/cc_number']
    )
    assert.deepEqual(await getCustomer(t, id), view)
    assert.deepEqual(await storedCustomer(t, id), before)
  })

  it('should name every field that breaks a rule in one answer', async () => {
    const { id } = await fullCustomer()
    const body = problem(
      await update({ customer_id: id, customer_name: `${'n'.repeat(101)}`, email: 'bad', phone: '1', preference: 'a', preferences: 'b' }),
      'validation_failed',
      ['/customer/customer_name', '/customer/email', '/customer/phone', '/customer/preferences']
    )
    assert.equal(body.detail, 'The request is invalid in 4 places; see errors.')
  })

  it('should answer 400 when customer or customer_id is missing or not of its type', async () => {
    problem(await t.post('/v1/customer/update', {}), 'validation_failed', ['/customer'])
    problem(await t.post('/v1/customer/update', { customer: 'cus_x' }), 'validation_failed', ['/customer'])
    problem(await update({ customer_name: 'No Id' }), 'validation_failed', ['/customer/customer_id'])
    problem(await update({ customer_id: 12 }), 'validation_failed', ['/customer/customer_id'])
    problem(await update({ customer_id: '' }), 'validation_failed', ['/customer/customer_id'])
    problem(await update({ customer_id: 'c'.repeat(65) }), 'validation_failed', ['/customer/customer_id'])
  })

  it('should answer 404 customer_not_found for an id that does not exist', async () => {
    problem(await update({ customer_id: 'cus_00000000000000000000000000', customer_name: 'No One' }), 'customer_not_found')
    problem(await update({ customer_id: 'cus_\u0000', customer_name: 'No One' }), 'customer_not_found')
  })

  it("should let a customer update their own record, and answer 404 for another's and change nothing there (D-11)", async () => {
    const me = await customerWithPassword(t)
    const other = await createCustomer(t)
    const mine = ok(
      await t.post('/v1/customer/update', { customer: { customer_id: me.id, customer_name: 'Me Myself' } }, { auth: me.auth })
    )
    assert.deepEqual(mine, { ...freshView({ customer_id: me.id, email: me.email }), first_name: 'Me', last_name: 'Myself' })
    const foreign = problem(
      await t.post('/v1/customer/update', { customer: { customer_id: other.customer_id, customer_name: 'Hijacked' } }, { auth: me.auth }),
      'customer_not_found'
    )
    const missing = problem(
      await t.post(
        '/v1/customer/update',
        { customer: { customer_id: 'cus_00000000000000000000000000', customer_name: 'Hijacked' } },
        { auth: me.auth }
      ),
      'customer_not_found'
    )
    assert.deepEqual(foreign, missing)
    assert.deepEqual(await getCustomer(t, other.customer_id), freshView(other))
  })

  it('should replay an update with the same Idempotency-Key and body, and refuse the key with another body (D-52)', async () => {
    const { id, view } = await fullCustomer()
    const key = { 'idempotency-key': `update-${id}` }
    const first = ok(await update({ customer_id: id, preference: 'first' }, key))
    assert.deepEqual(first, { ...view, preference: 'first' })
    await updateCustomer(t, { customer_id: id, preference: 'second' })
    assert.deepEqual(ok(await update({ customer_id: id, preference: 'first' }, key)), first)
    assert.equal((await getCustomer(t, id)).preference, 'second')
    problem(await update({ customer_id: id, preference: 'third' }, key), 'idempotency_key_reused')
  })

  it('should ignore unknown fields', async () => {
    const { id, view } = await fullCustomer()
    assert.deepEqual(await updateCustomer(t, { customer_id: id, first_name: 'Ignored', username: 'x', zipcode: '10001' }), view)
  })
})
