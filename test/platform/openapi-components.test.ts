import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Ajv } from 'ajv'
import { PROBLEM_STATUS, type ProblemCode } from '../../src/platform/problems.js'
import { TestApp } from '../helpers/app.js'
import { ok } from '../helpers/assertions.js'

type Json = Record<string, any>

const PUBLIC_URL = 'https://shop.test/orders'
const PROBLEM_REF = '#/components/schemas/Problem'

/** Every object in a JSON value, with its JSON pointer. */
function* objects(node: unknown, at = ''): Generator<[string, Json]> {
  if (node === null || typeof node !== 'object') return
  if (!Array.isArray(node)) yield [at, node as Json]
  for (const [key, value] of Object.entries(node)) yield* objects(value, `${at}/${key}`)
}

/** Every (method, path, operation) of the document. */
function operations(document: Json): Array<[string, string, Json]> {
  return Object.entries(document.paths as Json).flatMap(([path, methods]) =>
    Object.entries(methods as Json).map(([method, operation]) => [method, path, operation] as [string, string, Json])
  )
}

// The document is built from the route schemas alone, whatever the database: one dialect is enough.
describe('the OpenAPI document: named components, limits as keywords, servers and security (issue 26)', () => {
  const t = new TestApp('sqlite', { PUBLIC_URL })
  let document: Json
  let text: string
  let validate: (component: string, value: unknown) => void

  before(async () => {
    await t.start()
    const response = await t.post('/openapi.json', undefined, { method: 'GET', auth: null })
    text = response.body
    document = ok(response)
    // The published schemas, checked against real answers: Ajv reads the document as it is.
    const ajv = new Ajv({ strict: false, allErrors: true })
    ajv.addSchema(document, 'doc')
    validate = (component, value) => {
      const check = ajv.compile({ $ref: `doc#/components/schemas/${component}` })
      assert.ok(check(value), `${component}: ${JSON.stringify(check.errors)}\n${JSON.stringify(value)}`)
    }
  })
  after(() => t.stop())

  it('should name the shared shapes once under components.schemas', () => {
    assert.deepEqual(Object.keys(document.components.schemas).sort(), [
      'Board',
      'BoardCard',
      'BoardStep',
      'Catalogue',
      'CatalogueService',
      'CatalogueStep',
      'ConsoleConfig',
      'ConsoleSession',
      'ConsoleSessionOwner',
      'ConsoleStatus',
      'Customer',
      'CustomerCreated',
      'CustomerListEntry',
      'CustomerPage',
      'HistoryEntry',
      'Item',
      'ItemGroup',
      'ItemList',
      'PasswordResetConfirmed',
      'PasswordResetRequested',
      'Problem',
      'ProgressBar',
      'ReceiptLine',
      'SearchHit',
      'SearchResult',
      'Service',
      'ServiceCreated',
      'ServiceStatistics',
      'SignInResult',
      'StaffUser',
      'StaffUsers',
      'Statistics',
      'StatisticsEntry',
      'Step',
      'StepAdded',
      'StepEvent',
      'StepRemoved',
      'TrackingHistoryEntry',
      'TrackingLink',
      'TrackingStatus',
      'Transaction',
      'TransactionCreated',
      'TransactionHistory',
      'TransactionPage',
      'TransactionUpdated',
      'ValidationError'
    ])
    const transaction = document.components.schemas.Transaction.properties
    assert.deepEqual(transaction.service, { $ref: '#/components/schemas/Service' })
    assert.deepEqual(transaction.receipt.items, { $ref: '#/components/schemas/ReceiptLine' })
    assert.deepEqual(document.components.schemas.Problem.properties.errors.items, { $ref: '#/components/schemas/ValidationError' })
  })

  it('should resolve every $ref, and leave no internal x-doc- or x-problem-codes keyword', () => {
    let refs = 0
    for (const [at, object] of objects(document)) {
      for (const key of Object.keys(object)) assert.ok(!/^x-(doc-|problem-codes)/.test(key), `${at}/${key}`)
      if (typeof object.$ref !== 'string') continue
      const [, kind, name] = /^#\/components\/(schemas|headers)\/(.+)$/.exec(object.$ref) ?? []
      assert.ok(kind !== undefined && document.components[kind][name!] !== undefined, `${at}: ${object.$ref}`)
      refs++
    }
    assert.ok(refs > 500, `only ${refs} references`)
  })

  it('should refer every error response to the one Problem schema, narrowed to the codes of its status', () => {
    let responses = 0
    for (const [method, path, operation] of operations(document)) {
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        if (Number(status) < 400) continue
        assert.deepEqual(Object.keys(response.content), ['application/problem+json'], `${method} ${path} ${status}`)
        const { $ref, properties, ...rest } = response.content['application/problem+json'].schema
        assert.equal($ref, PROBLEM_REF, `${method} ${path} ${status}`)
        assert.deepEqual(rest, {})
        assert.deepEqual(Object.keys(properties), ['code'])
        for (const code of properties.code.enum) assert.equal(String(PROBLEM_STATUS[code as ProblemCode]), status, `${path} ${code}`)
        assert.equal(response.description, `Problem codes: ${properties.code.enum.map((c: string) => `\`${c}\``).join(', ')}.`)
        responses++
      }
      // No operation spells the problem document out again.
      for (const [at, object] of objects(operation)) {
        assert.ok(!(object.properties?.detail !== undefined && object.properties?.code !== undefined), `${path}${at}`)
      }
    }
    assert.ok(responses > 250, `only ${responses} error responses`)
    // Named components keep each operation to a few kilobytes (446 KB in all before them, at 33 operations).
    const count = operations(document).length
    assert.ok(text.length < count * 8 * 1024, `${text.length} bytes for ${count} operations`)
  })

  it('should answer every JSON 200 of /v1 with a named schema', () => {
    for (const [, path, operation] of operations(document).filter(([, path]) => path.startsWith('/v1/'))) {
      assert.match(operation.responses['200'].content['application/json'].schema.$ref, /^#\/components\/schemas\/[A-Za-z]+$/, path)
    }
  })

  it('should name PUBLIC_URL as the server, keep the paths whole, and mark operations without credentials security: []', () => {
    assert.deepEqual(document.servers, [{ url: PUBLIC_URL, description: 'PUBLIC_URL of this server.' }])
    const open: string[] = []
    for (const [method, path, operation] of operations(document)) {
      // Basic credentials, or a console session with its CSRF token (D-16).
      if (path.startsWith('/v1/')) assert.deepEqual(operation.security, [{ basicAuth: [] }, { consoleSession: [], csrfToken: [] }], path)
      else if (path === '/console/session' && method === 'get')
        assert.deepEqual(operation.security, [{ consoleSession: [], csrfToken: [] }])
      else {
        assert.deepEqual(operation.security, [], `${method} ${path}`)
        open.push(`${method.toUpperCase()} ${path}`)
      }
    }
    assert.deepEqual(open.sort(), [
      'GET /console/',
      'GET /console/config',
      'GET /console/set-password',
      'GET /healthz',
      'GET /metrics',
      'GET /readyz',
      'GET /reset-password',
      'GET /track/{token}',
      'POST /console/session',
      'POST /console/session/end',
      'POST /console/set-password',
      'POST /reset-password',
      'POST /track/{token}/status'
    ])
  })

  it('should state limits as keywords: names 100, e-mail 254, path ids, D-51 formats', () => {
    const body = (path: string) => document.paths[path].post.requestBody.content['application/json'].schema.properties
    const customer = body('/v1/customer/update').customer.properties
    assert.equal(customer.customer_name.maxLength, 100)
    assert.equal(customer.email.maxLength, 254)
    assert.equal(body('/v1/customer/create').email.maxLength, 254)
    assert.equal(body('/v1/service/create').service_name.maxLength, 100)
    assert.equal(body('/v1/customer/search').query.maxLength, 100)
    const parameter = (path: string, name: string) => document.paths[path].post.parameters.find((p: Json) => p.name === name).schema as Json
    assert.equal(parameter('/v1/customer/{customer_id}', 'customer_id').maxLength, 64)
    assert.equal(parameter('/v1/transaction/{transaction_id}/history', 'transaction_id').maxLength, 64)
    assert.equal(parameter('/v1/service/{service_name}/{position_number}', 'service_name').maxLength, 100)
    assert.equal(parameter('/v1/service/{service_name}/{position_number}', 'position_number').pattern, '^[1-9][0-9]*$')
    const view = document.components.schemas.Transaction.properties
    assert.ok(new RegExp(view.pickup_date_time.pattern).test('Nov 02, 2026 @ 09:05 AM'))
    assert.ok(new RegExp(view.pickup_date.pattern).test('2026-11-02'))
    assert.ok(new RegExp(view.pickup_time.pattern).test('09:05:00'))
    assert.ok(new RegExp(document.components.schemas.TransactionCreated.properties.pickup_time.pattern).test('09:05'))
  })

  it('should keep the limits it only documents out of validation: a name padded past 100 characters is still trimmed and accepted', async () => {
    const name = `${' '.repeat(20)}${'N'.repeat(100)}${' '.repeat(20)}`
    assert.deepEqual(ok(await t.post('/v1/service/create', { service_name: name, description: 'Wash' })), {
      message: 'successfully created'
    })
    // An unknown over-long id in a path is still 404, not 400.
    const response = await t.post(`/v1/customer/${'x'.repeat(200)}`)
    assert.equal(response.statusCode, 404)
  })

  it('should publish constant answers as const, and answer them', async () => {
    const constOf = (name: string, field: string) => document.components.schemas[name].properties[field].const
    assert.equal(constOf('ServiceCreated', 'message'), 'successfully created')
    assert.equal(constOf('StepRemoved', 'message'), 'successfully removed')
    assert.equal(constOf('SignInResult', 'status'), 'success')
    assert.equal(constOf('PasswordResetConfirmed', 'status'), 'success')
    assert.equal(constOf('TransactionCreated', 'status'), 'open')
    assert.equal(constOf('TransactionCreated', 'total'), '--')
    const healthz = document.paths['/healthz'].get.responses['200'].content['application/json'].schema
    assert.equal(healthz.properties.status.const, 'ok')
    assert.deepEqual(ok(await t.post('/healthz', undefined, { method: 'GET', auth: null })), { status: 'ok' })
  })

  it('should describe real answers truly: each validates against its published component', async () => {
    const service = `Pressing ${Date.now()}`
    validate('ServiceCreated', ok(await t.post('/v1/service/create', { service_name: service, description: 'Drop off', events: ['text'] })))
    validate('StepAdded', ok(await t.post('/v1/service/add', { service_name: service, description: 'Ready' })))
    validate('Service', ok(await t.post(`/v1/service/${encodeURIComponent(service)}/1`)))
    const item = ok(await t.post('/v1/item/create', { service_name: service, title: 'Shirt', price: 450, group: 'Tops' }))
    validate('Item', item)
    validate('ItemList', ok(await t.post(`/v1/service/${encodeURIComponent(service)}`)))
    const email = `ada.${Date.now()}@example.com`
    const created = ok(await t.post('/v1/customer/create', { email, zip: '10001', password: 'a long password' }))
    validate('CustomerCreated', created)
    const update = { customer_id: created.customer_id, customer_name: 'Ada Lovelace', phone: '+1 212 555 0100' }
    validate('Customer', ok(await t.post('/v1/customer/update', { customer: update })))
    validate('SearchResult', ok(await t.post('/v1/customer/search', { query: 'ada lo' })))
    validate('CustomerPage', ok(await t.post('/v1/customer/list', { limit: 1 })))
    validate('SignInResult', ok(await t.post('/v1/customer/signin', { email, password: 'a long password' })))
    const times = { pickup_timestamp: 1_793_344_500, delivery_timestamp: 1_793_430_900 }
    const order = ok(await t.post('/v1/transaction/create', { customer_id: created.customer_id, service_name: service, ...times }))
    validate('TransactionCreated', order)
    const id = order.transaction_id
    validate('TransactionUpdated', ok(await t.post('/v1/transaction/update', { transaction_id: id, note: 'Starch' })))
    validate('Transaction', ok(await t.post(`/v1/transaction/${id}`)))
    validate('Transaction', ok(await t.post('/v1/receipt/add', { transaction_id: id, item_id: item.item_id, quantity: 2 })))
    validate('TransactionPage', ok(await t.post('/v1/transaction/list', { customer_id: created.customer_id })))
    validate('Transaction', ok(await t.post('/v1/transaction/move', { customer_id: created.customer_id, transaction_id: id })))
    validate('TransactionHistory', ok(await t.post(`/v1/transaction/${id}/history`)))
    validate('Statistics', ok(await t.post('/v1/service/stats')))
    validate('Board', ok(await t.post('/v1/transaction/board', { service_name: service })))
    validate('Catalogue', ok(await t.post('/v1/catalogue/services')))
    validate(
      'CatalogueService',
      ok(await t.post('/v1/catalogue/step/update', { service_name: service, position_number: 1, expected_minutes: 15 }))
    )
    validate('CatalogueService', ok(await t.post('/v1/catalogue/service/update', { service_name: service, image_title: 'pressing' })))
    const link = ok(await t.post(`/v1/transaction/${id}/tracking`))
    validate('TrackingLink', link)
    const token = new URL(link.tracking_url).pathname.split('/').pop()
    validate('TrackingStatus', ok(await t.post(`/track/${token}/status`, undefined, { auth: null })))
    validate('PasswordResetRequested', ok(await t.post('/v1/customer/reset_password', { email })))
    const problem = await t.post('/v1/transaction/update', { transaction_id: 42 })
    validate('Problem', problem.json())
  })
})
