import assert from 'node:assert/strict'
import { it } from 'node:test'
import { describeEachDialect } from '../helpers/app.js'
import { ok, problem } from '../helpers/assertions.js'

const REUSED = {
  type: '/problems/idempotency_key_reused',
  title: 'Unprocessable Entity',
  status: 422,
  code: 'idempotency_key_reused'
}

describeEachDialect('Idempotency-Key (D-52, D-21)', (t) => {
  /** The names of every service, in creation order, from the statistics. */
  async function serviceNames(): Promise<string[]> {
    const stats = ok<{ service_stats: Array<{ service: Array<{ service_name?: string }> }> }>(await t.post('/v1/service/stats'))
    return stats.service_stats.map((s) => s.service[0]!.service_name!)
  }

  it('should answer a repeat with the same key and body with the first response, changing nothing twice', async () => {
    const headers = { 'idempotency-key': 'create-wash-1' }
    const first = await t.post('/v1/service/create', { service_name: 'Wash', description: 'Collect' }, { headers })
    assert.deepEqual(ok(first), { message: 'successfully created' })
    const again = await t.post('/v1/service/create', { service_name: 'Wash', description: 'Collect' }, { headers })
    assert.deepEqual(ok(again), { message: 'successfully created' })
    assert.deepEqual(await serviceNames(), ['Wash'])

    // A step added twice with one key is added once.
    const addHeaders = { 'idempotency-key': 'add-step-1' }
    const added = ok(await t.post('/v1/service/add', { service_name: 'Wash', description: 'Dry' }, { headers: addHeaders }))
    assert.deepEqual(added, { service_name: 'Wash', description: 'Dry', position: '2' })
    assert.deepEqual(ok(await t.post('/v1/service/add', { service_name: 'Wash', description: 'Dry' }, { headers: addHeaders })), added)
    const step3 = await t.post('/v1/service/Wash/3')
    problem(step3, 'step_not_found')
  })

  it('should answer 422 idempotency_key_reused for the same key with another body, changing nothing', async () => {
    const headers = { 'idempotency-key': 'create-iron-1' }
    ok(await t.post('/v1/service/create', { service_name: 'Iron', description: 'Press' }, { headers }))
    const response = await t.post('/v1/service/create', { service_name: 'Fold', description: 'Fold' }, { headers })
    const body = problem(response, 'idempotency_key_reused')
    assert.deepEqual(body, { ...REUSED, detail: body.detail })
    assert.ok(!(await serviceNames()).includes('Fold'))
  })

  it('should replay a retry whose body has the same fields in another order or spacing (canonical JSON)', async () => {
    const send = (raw: string) =>
      t.post('/v1/service/create', undefined, { raw, contentType: 'application/json', headers: { 'idempotency-key': 'reordered-1' } })
    const first = await send('{"service_name":"Dye","description":"Colour","events":["email","text"]}')
    assert.deepEqual(ok(first), { message: 'successfully created' })
    const reordered = await send('{ "events": ["email", "text"], "description": "Colour", "service_name": "Dye" }')
    assert.deepEqual(ok(reordered), { message: 'successfully created' })
    // Array order is part of the request: another order of events is another body.
    const otherArray = await send('{"service_name":"Dye","description":"Colour","events":["text","email"]}')
    problem(otherArray, 'idempotency_key_reused')
    assert.equal((await serviceNames()).filter((name) => name === 'Dye').length, 1)
  })

  it('should answer 422 idempotency_key_reused for the same key on another path', async () => {
    const headers = { 'idempotency-key': 'path-key-1' }
    ok(await t.post('/v1/service/create', { service_name: 'Mend', description: 'Sew' }, { headers }))
    problem(await t.post('/v1/service/add', { service_name: 'Mend', description: 'Sew' }, { headers }), 'idempotency_key_reused')
  })

  it('should answer 422 for a used key sent with a body the operation refuses, another path or body alike', async () => {
    const headers = { 'idempotency-key': 'path-key-2' }
    const customer = { email: 'path.key.two@example.com', zip: '90210' }
    ok(await t.post('/v1/customer/create', customer, { headers }))
    // The customer body is no body for these operations: the key, not the body, is what is wrong (D-52).
    for (const path of ['/v1/service/create', '/v1/item/create', '/v1/transaction/create']) {
      const body = problem(await t.post(path, customer, { headers }), 'idempotency_key_reused')
      assert.deepEqual(body, { ...REUSED, detail: body.detail })
    }
    problem(await t.post('/v1/customer/create', { ...customer, zip: 'nope' }, { headers }), 'idempotency_key_reused')
    // A body naming an unknown record by a key with control characters (a 404 from the schema) too.
    problem(await t.post('/v1/service/add', { service_name: 'Mend\u0000', description: 'x' }, { headers }), 'idempotency_key_reused')
    // An unused key, or none, leaves the schema's answer as it is; so does another credential's key.
    problem(await t.post('/v1/service/create', customer, { headers: { 'idempotency-key': 'path-key-3' } }), 'validation_failed')
    problem(await t.post('/v1/service/create', customer), 'validation_failed')
    problem(await t.post('/v1/service/create', customer, { headers, auth: t.auth.admin }), 'validation_failed')
    // Past 24 hours the key is free again, and the schema answers.
    t.clock.advance(24 * 60 * 60 * 1000 + 1000)
    problem(await t.post('/v1/service/create', customer, { headers }), 'validation_failed')
  })

  it('should replay a failure with the same key and body, and not let it succeed later', async () => {
    const headers = { 'idempotency-key': 'dup-1' }
    const first = await t.post('/v1/service/create', { service_name: 'Wash', description: 'Other' }, { headers })
    const body = problem(first, 'service_exists')
    const again = await t.post('/v1/service/create', { service_name: 'Wash', description: 'Other' }, { headers })
    assert.deepEqual(problem(again, 'service_exists'), body)
  })

  it('should keep keys per credential', async () => {
    const headers = { 'idempotency-key': 'shared-key' }
    ok(await t.post('/v1/service/create', { service_name: 'Polish', description: 'Shine' }, { headers }))
    // The same key from the admin key is another key: it runs, and finds the name taken.
    problem(
      await t.post('/v1/service/create', { service_name: 'Polish', description: 'Shine' }, { headers, auth: t.auth.admin }),
      'service_exists'
    )
  })

  it('should keep answers sealed, and still replay one kept in the clear before answers were sealed', async () => {
    const headers = { 'idempotency-key': 'sealed-1' }
    const first = ok(await t.post('/v1/service/create', { service_name: 'Sealed', description: 'Kept' }, { headers }))
    const kept = () =>
      t.database.db.selectFrom('idempotency_keys').select('response').where('key', '=', 'sealed-1').executeTakeFirstOrThrow()
    const sealed = (await kept()).response
    assert.match(sealed, /^v1\.[\w-]+\.[\w-]+\.[\w-]+$/)
    assert.ok(!sealed.includes('successfully'))
    await t.database.db
      .updateTable('idempotency_keys')
      .set({ response: JSON.stringify(first) })
      .where('key', '=', 'sealed-1')
      .execute()
    assert.deepEqual(ok(await t.post('/v1/service/create', { service_name: 'Sealed', description: 'Kept' }, { headers })), first)
    // A kept failure is sealed and replayed too.
    const failing = { 'idempotency-key': 'sealed-2' }
    const refused = problem(
      await t.post('/v1/service/create', { service_name: 'Sealed', description: 'Kept' }, { headers: failing }),
      'service_exists'
    )
    assert.match(
      (await t.database.db.selectFrom('idempotency_keys').select('response').where('key', '=', 'sealed-2').executeTakeFirstOrThrow())
        .response,
      /^v1\./
    )
    assert.deepEqual(
      problem(await t.post('/v1/service/create', { service_name: 'Sealed', description: 'Kept' }, { headers: failing }), 'service_exists'),
      refused
    )
  })

  it('should run again once the key is older than 24 hours', async () => {
    const headers = { 'idempotency-key': 'old-key' }
    ok(await t.post('/v1/service/create', { service_name: 'Starch', description: 'Stiffen' }, { headers }))
    t.clock.advance(24 * 60 * 60 * 1000 + 1000)
    problem(await t.post('/v1/service/create', { service_name: 'Starch', description: 'Stiffen' }, { headers }), 'service_exists')
  })

  it('should hold one answer for two concurrent requests with one key', async () => {
    const headers = { 'idempotency-key': 'concurrent-1' }
    const [a, b] = await Promise.all([
      t.post('/v1/service/create', { service_name: 'Twice', description: 'Once' }, { headers }),
      t.post('/v1/service/create', { service_name: 'Twice', description: 'Once' }, { headers })
    ])
    assert.deepEqual(ok(a), { message: 'successfully created' })
    assert.deepEqual(ok(b), { message: 'successfully created' })
    assert.equal((await serviceNames()).filter((name) => name === 'Twice').length, 1)
  })

  for (const [label, key, message] of [
    ['over 255 characters', 'k'.repeat(256), 'must be at most 255 characters'],
    ['with a space', 'two words', 'must be 1 to 255 visible ASCII characters'],
    ['with a tab', 'tab\there', 'must be 1 to 255 visible ASCII characters'],
    ['with a non-ASCII character', 'caf\u00e9', 'must be 1 to 255 visible ASCII characters'],
    ['empty', '', 'must not be empty']
  ] as const) {
    it(`should answer 400 validation_failed for an Idempotency-Key ${label}`, async () => {
      const response = await t.post(
        '/v1/service/create',
        { service_name: 'Never', description: 'x' },
        { headers: { 'idempotency-key': key } }
      )
      const body = problem(response, 'validation_failed', ['/headers/idempotency-key'])
      assert.deepEqual(body.errors, [{ field: '/headers/idempotency-key', message }])
      assert.ok(!(await serviceNames()).includes('Never'))
    })
  }

  it('should accept a key of exactly 255 visible characters', async () => {
    const key = `${'!~'.repeat(127)}z`
    assert.equal(key.length, 255)
    ok(await t.post('/v1/service/create', { service_name: 'Longkey', description: 'x' }, { headers: { 'idempotency-key': key } }))
  })
})
