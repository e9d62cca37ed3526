import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { before, it } from 'node:test'
import { describeEachDialect } from '../helpers/app.js'
import { ok } from '../helpers/assertions.js'

const STEP_VIEW = {
  service_id: '',
  service_name: 'Laundry',
  position: { position_number: '1', position_description: 'Drop off', button_title: '', events: [] },
  progress_bar: { total_steps: 2, percentage: 50 }
}

/** Sends a raw request over a real socket (chunked when `chunked`), and reads the answer. */
function send(port: number, path: string, authorization: string, headers: Record<string, string>, body: Buffer, chunked: boolean) {
  return new Promise<{ status: number; contentType: string | undefined; body: string }>((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent: false,
        headers: { authorization, ...headers, ...(chunked ? {} : { 'content-length': String(body.length) }) }
      },
      (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (text += chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, contentType: response.headers['content-type'], body: text }))
      }
    )
    request.on('error', reject)
    if (chunked) {
      // Several chunks, so the body really streams in after the headers.
      for (let offset = 0; offset < body.length; offset += 16 * 1024) request.write(body.subarray(offset, offset + 16 * 1024))
      request.end()
    } else {
      request.end(body)
    }
  })
}

describeEachDialect('operations without a body ignore any body (D-23)', (t) => {
  let stats: unknown
  let port: number

  before(async () => {
    ok(await t.post('/v1/service/create', { service_name: 'Laundry', description: 'Drop off' }))
    ok(await t.post('/v1/service/add', { service_name: 'Laundry', description: 'Wash' }))
    stats = ok(await t.post('/v1/service/stats'))
    const view = ok(await t.post('/v1/service/Laundry/1'))
    STEP_VIEW.service_id = view.service_id
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    port = (t.app.server.address() as AddressInfo).port
  })

  const cases: Array<[string, { raw: string | Buffer; contentType?: string }]> = [
    ['invalid JSON', { raw: '{"unterminated', contentType: 'application/json' }],
    ['an empty JSON body', { raw: '', contentType: 'application/json' }],
    ['valid JSON of any shape', { raw: '[1,2,3]', contentType: 'application/json' }],
    ['text/plain', { raw: 'hello', contentType: 'text/plain' }],
    ['form-encoded', { raw: 'a=1&b=2', contentType: 'application/x-www-form-urlencoded' }],
    ['a malformed Content-Type header', { raw: '{}', contentType: ';;; not a / type' }],
    ['a body without a content type', { raw: 'stray bytes' }],
    ['a JSON body over 64 KiB', { raw: JSON.stringify({ pad: 'x'.repeat(100 * 1024) }), contentType: 'application/json' }],
    ['a binary body over 64 KiB', { raw: Buffer.alloc(200 * 1024, 7), contentType: 'application/octet-stream' }]
  ]

  for (const [label, options] of cases) {
    it(`should answer service statistics normally when sent ${label}`, async () => {
      assert.deepEqual(ok(await t.post('/v1/service/stats', undefined, options)), stats)
    })

    it(`should answer a service step normally when sent ${label}`, async () => {
      assert.deepEqual(ok(await t.post('/v1/service/Laundry/1', undefined, options)), STEP_VIEW)
    })
  }

  it('should ignore a body over 64 KiB streamed over a real connection, with or without a length', async () => {
    const big = Buffer.from(JSON.stringify({ pad: 'y'.repeat(300 * 1024) }))
    for (const chunked of [false, true]) {
      for (const contentType of ['application/json', 'text/plain']) {
        const answer = await send(port, '/v1/service/stats', t.auth.staff, { 'content-type': contentType }, big, chunked)
        assert.equal(answer.status, 200, answer.body)
        assert.equal(answer.contentType, 'application/json; charset=utf-8')
        assert.deepEqual(JSON.parse(answer.body), stats)
      }
    }
  })
})
