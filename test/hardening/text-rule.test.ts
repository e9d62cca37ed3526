import assert from 'node:assert/strict'
import { before, it } from 'node:test'
import { LINE_PATTERN, TEXT_PATTERN } from '../../src/platform/schemas.js'
import { describeEachDialect } from '../helpers/app.js'
import { ok, problem } from '../helpers/assertions.js'
import { Fixtures } from '../helpers/route-catalogue.js'

type Schema = Record<string, any>

/** Every schema inside `schema` that may hold text, with a JSON pointer to where it is. */
function textSchemas(schema: Schema | undefined, at: string): Array<{ at: string; schema: Schema }> {
  if (schema === undefined || typeof schema !== 'object') return []
  const found: Array<{ at: string; schema: Schema }> = []
  const types = Array.isArray(schema.type) ? schema.type : [schema.type]
  if (types.includes('string')) found.push({ at, schema })
  for (const [name, child] of Object.entries<Schema>(schema.properties ?? {})) found.push(...textSchemas(child, `${at}/${name}`))
  if (schema.items !== undefined) found.push(...textSchemas(schema.items, `${at}/*`))
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const)
    for (const [i, child] of (schema[key] ?? []).entries()) found.push(...textSchemas(child, `${at}(${key}[${i}])`))
  return found
}

/** Whether a schema's pattern (or enum) lets text through. */
function accepts(schema: Schema, text: string): boolean {
  if (Array.isArray(schema.enum)) return schema.enum.includes(text)
  return schema.pattern === undefined || new RegExp(schema.pattern, 'u').test(text)
}

describeEachDialect('the text rule: no control characters in any text field (issue 8)', (t) => {
  let fx: Fixtures

  before(async () => {
    fx = await new Fixtures(t).setUp()
  })

  it('should refuse NUL, ESC, DEL and C1 controls in every string field of every /v1 body and path, per the OpenAPI document', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, Schema>>
    }
    let checked = 0
    for (const [path, methods] of Object.entries(document.paths)) {
      const operation = methods.post
      if (!path.startsWith('/v1/') || operation === undefined) continue
      const fields = [
        ...textSchemas(operation.requestBody?.content?.['application/json']?.schema, `${path} body`),
        ...(operation.parameters ?? []).flatMap((parameter: Schema) =>
          textSchemas(parameter.schema, `${path} ${parameter.in} ${parameter.name}`)
        )
      ]
      for (const { at, schema } of fields) {
        // A position in a path is read as a number (anything else is 404 step_not_found, D-43): no text reaches the database.
        if (at.endsWith('path position_number')) continue
        for (const control of [
          '\u0000',
          '\u001b',
          '\u007f',
          'a\u0000b',
          '\u0080',
          'a\u0085b',
          '\u009f',
          '\ud800',
          'a\udfffb',
          '\ude00\ud83d'
        ]) {
          assert.equal(accepts(schema, control), false, `${at} accepts ${JSON.stringify(control)}`)
        }
        // A paired surrogate is one character (U+1F600) and passes wherever text does.
        // (A field with a list of names, such as an event, takes none of them.)
        if ((schema.pattern === TEXT_PATTERN || schema.pattern === LINE_PATTERN) && schema.enum === undefined) {
          assert.equal(accepts(schema, 'a\ud83d\ude00'), true, `${at} refuses an emoji`)
          // The first printable characters after the C1 block: a no-break space and accented letters.
          assert.equal(accepts(schema, '\u00a0\u00e9\u00ff'), true, `${at} refuses Latin-1 letters`)
        }
        checked++
      }
    }
    assert.ok(checked > 60, `only ${checked} text fields found`)
  })

  it('should write the rule into the OpenAPI description', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { info: { description: string } }
    assert.match(
      document.info.description,
      /\*\*Text\.\*\* No text field may hold control characters \(U\+0000 to U\+001F, U\+007F to U\+009F\)/
    )
  })

  it('should answer 400 validation_failed naming each text field holding a control character, and store nothing', async () => {
    const name = `Pressing ${fx.next()}`
    for (const [path, body, field] of [
      ['/v1/service/create', { service_name: 'Nul\u0000Service', description: 'x' }, '/service_name'],
      ['/v1/service/create', { service_name: name, description: 'Picked\u0000up' }, '/description'],
      ['/v1/service/create', { service_name: name, description: 'x', button_title: 'Go\u001b[31m' }, '/button_title'],
      ['/v1/item/create', { service_name: fx.service, title: 'Shirt\u0007', price: 100 }, '/title'],
      [
        '/v1/transaction/create',
        {
          customer_id: fx.me.id,
          service_name: fx.service,
          pickup_timestamp: 1_793_344_500,
          delivery_timestamp: 1_793_430_900,
          notes: 'a\u0000'
        },
        '/notes'
      ],
      ['/v1/customer/create', { email: 'new.nul@example.com', zip: '10001', password: 'pass\u0000word' }, '/password'],
      ['/v1/customer/signin', { email: fx.me.email, password: '\u0000' }, '/password'],
      // C1 controls (U+0080 to U+009F), e.g. NEL and CSI: Latin-1 control bytes read as UTF-8 text.
      ['/v1/service/create', { service_name: 'Next\u0085Line', description: 'x' }, '/service_name'],
      ['/v1/service/create', { service_name: name, description: 'Picked\u009bup' }, '/description'],
      ['/v1/customer/update', { customer: { customer_id: fx.me.id, customer_name: 'a\u0085b' } }, '/customer/customer_name']
    ] as const) {
      problem(await t.post(path, body), 'validation_failed', [field])
    }
    // An inner control character in a name is refused even where the schema lets line breaks through (trimmed names).
    problem(await t.post('/v1/service/create', { service_name: 'Two\nLines', description: 'x' }), 'validation_failed', ['/service_name'])
    const services = await t.database.db.selectFrom('services').select('name').execute()
    assert.ok(services.every((row) => !/[\u0000-\u001f\u007f-\u009f]/.test(row.name)))
  })

  it('should answer 400 for an unpaired surrogate in any text field, storing nothing, and keep paired ones', async () => {
    const name = `Surrogate ${fx.next()}`
    const message = 'must not contain control characters other than tabs and line breaks, nor unpaired surrogates'
    const before = await t.database.db
      .selectFrom('customers')
      .select(['first_name', 'preference'])
      .where('id', '=', fx.me.id)
      .executeTakeFirstOrThrow()
    for (const [path, body, field, text] of [
      ['/v1/service/create', { service_name: `${name}\ud800`, description: 'x' }, '/service_name', message],
      ['/v1/service/create', { service_name: name, description: 'Picked \udc00 up' }, '/description', message],
      [
        '/v1/item/create',
        { service_name: fx.service, title: 'Shirt \ud83d', price: 100 },
        '/title',
        'must not contain control characters nor unpaired surrogates'
      ],
      ['/v1/customer/update', { customer: { customer_id: fx.me.id, preference: 'a\ud800b' } }, '/customer/preference', message],
      [
        '/v1/customer/update',
        { customer: { customer_id: fx.me.id, customer_name: 'X\udfffY Z' } },
        '/customer/customer_name',
        'must not contain control characters nor unpaired surrogates'
      ]
    ] as const) {
      const answer = problem(await t.post(path, body), 'validation_failed', [field])
      assert.deepEqual(answer.errors, [{ field, message: text }])
    }
    assert.equal((await t.post(`/v1/service/${encodeURIComponent(name)}/1`)).statusCode, 404)
    const after = await t.database.db
      .selectFrom('customers')
      .select(['first_name', 'preference'])
      .where('id', '=', fx.me.id)
      .executeTakeFirstOrThrow()
    assert.deepEqual(after, before)
    // As a key it names nothing: 404, as for any unknown name.
    problem(await t.post('/v1/service/add', { service_name: `${fx.service}\ud800`, description: 'x' }), 'service_not_found')
    problem(await t.post('/v1/customer/update', { customer: { customer_id: `${fx.me.id}\udc00` } }), 'customer_not_found')
    // A paired surrogate (an emoji) is stored and read back as sent.
    ok(await t.post('/v1/service/create', { service_name: `${name} \ud83e\uddfa`, description: 'Basket \ud83e\uddfa' }))
    const step = ok(await t.post(`/v1/service/${encodeURIComponent(`${name} 🧺`)}/1`))
    assert.deepEqual([step.service_name, step.position.position_description], [`${name} 🧺`, 'Basket 🧺'])
  })

  it('should keep tabs and line breaks in free text, and trim them around names', async () => {
    const name = `Folding ${fx.next()}`
    ok(await t.post('/v1/service/create', { service_name: `\t${name}\n`, description: 'Sort\tby colour\r\nthen fold' }))
    const step = ok(await t.post(`/v1/service/${encodeURIComponent(name)}/1`))
    assert.equal(step.service_name, name)
    assert.equal(step.position.position_description, 'Sort\tby colour\r\nthen fold')
  })

  it('should answer an id or name holding control characters as not found, in a path or a body', async () => {
    const order = await fx.order(fx.me)
    const cases: Array<[string, unknown, Parameters<typeof problem>[1]]> = [
      ['/v1/customer/cus_%00', undefined, 'customer_not_found'],
      ['/v1/service/Laundry%00', undefined, 'service_not_found'],
      ['/v1/service/Laundry%00/1', undefined, 'service_not_found'],
      ['/v1/transaction/trx_%00', undefined, 'transaction_not_found'],
      ['/v1/transaction/trx_%00/history', undefined, 'transaction_not_found'],
      ['/v1/service/add', { service_name: 'Laundry\u0000', description: 'x' }, 'service_not_found'],
      ['/v1/item/create', { service_name: '\u0000', title: 'x', price: 1 }, 'service_not_found'],
      ['/v1/item/update', { item_id: '1\u0000' }, 'item_not_found'],
      ['/v1/receipt/remove', { transaction_id: order, item_id: '1\u0000' }, 'item_not_on_receipt'],
      [
        '/v1/transaction/create',
        { customer_id: 'cus_\u0000', service_name: fx.service, pickup_timestamp: 1_793_344_500, delivery_timestamp: 1_793_430_900 },
        'customer_not_found'
      ],
      ['/v1/transaction/update', { transaction_id: order, service_name: 'Laundry\u0000' }, 'service_not_found'],
      ['/v1/receipt/add', { transaction_id: 'trx_\u0000', item_id: fx.itemId }, 'transaction_not_found'],
      ['/v1/transaction/move', { customer_id: fx.me.id, transaction_id: '\u0000' }, 'transaction_not_found'],
      ['/v1/customer/update', { customer: { customer_id: 'cus_\u0000' } }, 'customer_not_found']
    ]
    for (const [path, body, code] of cases) problem(await t.post(path, body), code)
    // Beside a real fault, the fault is what is reported.
    problem(await t.post('/v1/receipt/add', { transaction_id: 'trx_\u0000', item_id: fx.itemId, quantity: 0 }), 'validation_failed', [
      '/quantity'
    ])
  })
})
