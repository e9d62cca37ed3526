import assert from 'node:assert/strict'
import { it } from 'node:test'
import { basic, describeEachDialect } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { uniqueEmail } from './support.js'

describeEachDialect('create customer (D-30, D-31)', (t) => {
  const create = (body: unknown, headers: Record<string, string> = {}) => t.post('/v1/customer/create', body, { headers })

  it('should answer the create shape with the e-mail trimmed and lower-cased and city and state from the zip', async () => {
    const email = uniqueEmail('Create')
    const body = ok(await create({ email: `  ${email.toUpperCase()}\t`, zip: '90210' }))
    assert.match(body.customer_id, /^cus_[0-9a-z]{24}$/)
    assert.deepEqual(body, {
      customer_id: body.customer_id,
      first_name: '',
      last_name: '',
      email: email.toLowerCase(),
      phone: '',
      payment_customer_id: '',
      address: { street_one: '', street_two: '', city: 'Beverly Hills', state: 'CA', zip: '90210' }
    })
    // The read shape of the same customer: username is the e-mail (D-31).
    assert.deepEqual(ok(await t.post(`/v1/customer/${body.customer_id}`)), {
      customer_id: body.customer_id,
      first_name: '',
      last_name: '',
      username: email.toLowerCase(),
      email: email.toLowerCase(),
      phone: '',
      preference: '',
      address: { street: '', apartment: '', city: 'Beverly Hills', state: 'CA', zipcode: '90210' }
    })
  })

  it('should give opaque, distinct ids that never equal a path segment (D-30)', async () => {
    const ids = new Set<string>()
    for (let i = 0; i < 5; i++) ids.add(ok(await create({ email: uniqueEmail(), zip: '10001' })).customer_id)
    assert.equal(ids.size, 5)
    for (const id of ids) assert.match(id, /^cus_[0-9a-z]{24}$/)
  })

  it('should accept ZIP+4 and keep it, with city and state of its first five digits', async () => {
    const email = uniqueEmail()
    const body = ok(await create({ email, zip: '02134-1234' }))
    assert.deepEqual(body.address, { street_one: '', street_two: '', city: 'Allston', state: 'MA', zip: '02134-1234' })
  })

  it('should keep the leading zeros of a zip', async () => {
    const body = ok(await create({ email: uniqueEmail(), zip: '00501' }))
    assert.deepEqual(body.address, { street_one: '', street_two: '', city: 'Holtsville', state: 'NY', zip: '00501' })
  })

  it('should answer 400 unknown_zip for a well-formed zip not in the database', async () => {
    for (const zip of ['00000', '99999', '00000-1234']) {
      const body = problem(await create({ email: uniqueEmail(), zip }), 'unknown_zip', ['/zip'])
      assert.deepEqual(body.errors, [{ field: '/zip', message: 'is not a known US ZIP code' }])
    }
  })

  it('should answer 400 validation_failed for a malformed zip', async () => {
    for (const zip of ['9021', '902100', '90210-12', '90210 1234', 'abcde', 'K1A 0B1', '', ' 90210']) {
      const body = problem(await create({ email: uniqueEmail(), zip }), 'validation_failed', ['/zip'])
      assert.deepEqual(body.errors, [{ field: '/zip', message: 'must be five digits or ZIP+4 (12345-6789)' }])
    }
    problem(await create({ email: uniqueEmail(), zip: 90210 }), 'validation_failed', ['/zip'])
    problem(await create({ email: uniqueEmail(), zip: null }), 'validation_failed', ['/zip'])
  })

  it('should answer 400 naming each missing field', async () => {
    problem(await create({ zip: '90210' }), 'validation_failed', ['/email'])
    problem(await create({ email: uniqueEmail() }), 'validation_failed', ['/zip'])
    const body = problem(await create({}), 'validation_failed', ['/email', '/zip'])
    assert.deepEqual(body.errors, [
      { field: '/email', message: 'is required' },
      { field: '/zip', message: 'is required' }
    ])
    problem(await t.post('/v1/customer/create', undefined), 'validation_failed', [''])
    problem(await t.post('/v1/customer/create', undefined, { raw: '', contentType: 'application/json' }), 'invalid_json')
    problem(await t.post('/v1/customer/create', undefined, { raw: '{"email":', contentType: 'application/json' }), 'invalid_json')
    problem(
      await t.post('/v1/customer/create', undefined, { raw: 'email=a', contentType: 'application/x-www-form-urlencoded' }),
      'unsupported_media_type'
    )
    problem(await t.post('/v1/customer/create', [1]), 'validation_failed', [''])
  })

  it('should answer 400 for an e-mail that is malformed, too long or not text', async () => {
    const local = 'a'.repeat(64)
    const tooLong = `${local}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com`
    assert.ok(tooLong.length > 254)
    for (const email of [
      'plain',
      'a@b',
      '@example.com',
      'a b@example.com',
      'a@exa mple.com',
      `${'a'.repeat(65)}@example.com`,
      tooLong,
      '',
      '   ',
      // Dots must join atoms (RFC 5321 dot-string); only ASCII.
      '.a@example.com',
      'a.@example.com',
      'a..b@example.com',
      'josé@example.com',
      'x@bücher.example'
    ]) {
      const body = problem(await create({ email, zip: '90210' }), 'validation_failed', ['/email'])
      assert.deepEqual(body.errors, [
        { field: '/email', message: 'must be an e-mail address like name@example.com, in ASCII, of at most 254 characters' }
      ])
    }
    for (const email of ['x'.repeat(301), 'x'.repeat(10_000)]) {
      const body = problem(await create({ email, zip: '90210' }), 'validation_failed', ['/email'])
      assert.deepEqual(body.errors, [
        { field: '/email', message: 'must be an e-mail address like name@example.com, in ASCII, of at most 254 characters' }
      ])
    }
    problem(await create({ email: 42, zip: '90210' }), 'validation_failed', ['/email'])
  })

  it('should accept dot-separated local parts with the other characters RFC 5321 allows (D-31)', async () => {
    for (const email of [
      `first.last+tag-${Date.now()}@mail.example.co.uk`,
      `o'brien_${Date.now()}@example.com`,
      `x#y!z~${Date.now()}@a-b.example`
    ]) {
      assert.equal(ok(await create({ email, zip: '90210' })).email, email)
    }
  })

  it('should count the 254 characters of an e-mail after trimming (D-31)', async () => {
    const address = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`
    assert.equal(address.length, 254)
    const body = ok(await create({ email: `${' '.repeat(40)}${address.toUpperCase()}\t${' '.repeat(40)}`, zip: '90210' }))
    assert.equal(body.email, address)
  })

  it('should answer 409 email_taken for a used e-mail, whatever its case and spaces', async () => {
    const email = uniqueEmail()
    ok(await create({ email, zip: '90210' }))
    problem(await create({ email, zip: '10001' }), 'email_taken')
    problem(await create({ email: ` ${email.toUpperCase()} `, zip: '10001' }), 'email_taken')
    const rows = await t.database.db.selectFrom('customers').select('id').where('email', '=', email).execute()
    assert.equal(rows.length, 1)
  })

  it('should take an optional password of 8 to 128 characters that then signs in, and never answer it', async () => {
    const email = uniqueEmail()
    const password = 'pässwörd-8'
    const response = await create({ email, zip: '90210', password })
    const body = ok(response)
    assert.deepEqual(Object.keys(body).sort(), [
      'address',
      'customer_id',
      'email',
      'first_name',
      'last_name',
      'payment_customer_id',
      'phone'
    ])
    assert.ok(!response.body.includes(password))
    const row = await t.database.db
      .selectFrom('customers')
      .select('password_hash')
      .where('id', '=', body.customer_id)
      .executeTakeFirstOrThrow()
    assert.match(row.password_hash!, /^scrypt\$/)
    assert.ok(!row.password_hash!.includes(password))
    assert.deepEqual(ok(await t.post('/v1/customer/signin', { email, password })), { status: 'success', customer_id: body.customer_id })
    // And as Basic credentials (D-10).
    ok(await t.post(`/v1/customer/${body.customer_id}`, undefined, { auth: basic(email, password) }))
  })

  it('should create a customer without a password who cannot sign in', async () => {
    const email = uniqueEmail()
    ok(await create({ email, zip: '90210' }))
    problem(await t.post('/v1/customer/signin', { email, password: 'anything at all' }), 'invalid_login')
  })

  it('should answer 400 for a password too short, too long or not text', async () => {
    const short = problem(await create({ email: uniqueEmail(), zip: '90210', password: '1234567' }), 'validation_failed', ['/password'])
    assert.deepEqual(short.errors, [{ field: '/password', message: 'must be at least 8 characters' }])
    const long = problem(await create({ email: uniqueEmail(), zip: '90210', password: 'x'.repeat(129) }), 'validation_failed', [
      '/password'
    ])
    assert.deepEqual(long.errors, [{ field: '/password', message: 'must be at most 128 characters' }])
    problem(await create({ email: uniqueEmail(), zip: '90210', password: 12345678 }), 'validation_failed', ['/password'])
    problem(await create({ email: uniqueEmail(), zip: '90210', password: null }), 'validation_failed', ['/password'])
  })

  it('should count password length in characters, not UTF-16 units', async () => {
    // Eight emoji: 16 UTF-16 units, 8 characters.
    ok(await create({ email: uniqueEmail(), zip: '90210', password: '😀'.repeat(8) }))
    problem(await create({ email: uniqueEmail(), zip: '90210', password: '😀'.repeat(7) }), 'validation_failed', ['/password'])
  })

  it('should name every failing field at once', async () => {
    problem(await create({ email: 1, zip: 2, password: 3 }), 'validation_failed', ['/email', '/zip', '/password'])
  })

  it('should ignore unknown fields', async () => {
    const body = ok(await create({ email: uniqueEmail(), zip: '90210', first_name: 'Ignored', payment_customer_id: 'pay_x' }))
    assert.equal(body.first_name, '')
    assert.equal(body.payment_customer_id, '')
  })

  it('should replay a create with the same Idempotency-Key and body, and create once (D-52)', async () => {
    const email = uniqueEmail()
    const first = ok(await create({ email, zip: '90210' }, { 'idempotency-key': `create-${email}` }))
    const again = ok(await create({ email, zip: '90210' }, { 'idempotency-key': `create-${email}` }))
    assert.deepEqual(again, first)
    const rows = await t.database.db.selectFrom('customers').select('id').where('email', '=', email).execute()
    assert.deepEqual(rows, [{ id: first.customer_id }])
    problem(await create({ email, zip: '10001' }, { 'idempotency-key': `create-${email}` }), 'idempotency_key_reused')
    // Without the key the same body is a new create: the e-mail is taken.
    problem(await create({ email, zip: '90210' }), 'email_taken')
  })

  it('should replay a refused create with the same key as the same refusal', async () => {
    const email = uniqueEmail()
    ok(await create({ email, zip: '90210' }))
    const key = { 'idempotency-key': `taken-${email}` }
    const first = problem(await create({ email, zip: '90210' }, key), 'email_taken')
    assert.deepEqual(problem(await create({ email, zip: '90210' }, key), 'email_taken'), first)
  })

  it('should answer one success and one 409 when two creates of one e-mail race', async () => {
    const email = uniqueEmail()
    const answers = await Promise.all([create({ email, zip: '90210' }), create({ email, zip: '10001' })])
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, 409])
    for (const answer of answers) if (answer.statusCode === 409) problem(answer, 'email_taken')
  })
})
