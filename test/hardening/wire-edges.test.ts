import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { before, it } from 'node:test'
import { gzipSync } from 'node:zlib'
import { describeEachDialect } from '../helpers/app.js'
import { ok, problem } from '../helpers/assertions.js'
import { assertProblem, RawClient } from '../helpers/raw-client.js'

// Deadlines are checked from time to time and the machine may be loaded: an upper bound only.
const GENEROUS_MS = 20_000

const CUSTOMER = { email: 'jose@example.com', zip: '10001' }

/**
 * The edges of the wire a second robustness check found (D-20, D-21, D-73): bodies that are not
 * UTF-8 or are compressed, header sections Node lets through, expectations, CONNECT, and a client
 * that leaves before its body arrives. Over real sockets where the request cannot be injected.
 */
describeEachDialect(
  'the wire: character sets, codings, header sections, aborted bodies',
  (t) => {
    let port = 0
    let customerId = ''

    before(async () => {
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      port = (t.app.server.address() as AddressInfo).port
      customerId = ok(await t.post('/v1/customer/create', CUSTOMER)).customer_id
    })

    const rename = (raw: Buffer | string, contentType: string, headers: Record<string, string> = {}) =>
      t.post('/v1/customer/update', undefined, { raw, contentType, headers })

    const firstName = async () => ok(await t.post(`/v1/customer/${customerId}`)).first_name

    it('should answer 415 for a JSON body in another character set than UTF-8, changing nothing', async () => {
      const latin1 = Buffer.concat([
        Buffer.from(`{"customer":{"customer_id":"${customerId}","customer_name":"Jos`),
        Buffer.from([0xe9]),
        Buffer.from(' Garcia"}}')
      ])
      for (const [contentType, charset] of [
        ['application/json; charset=iso-8859-1', 'iso-8859-1'],
        ['application/json;charset="latin1"', 'latin1'],
        ['application/json; charset=utf-16', 'utf-16']
      ] as const) {
        const response = await rename(latin1, contentType)
        const body = problem(response, 'unsupported_media_type')
        assert.equal(response.statusCode, 415)
        assert.equal(body.detail, `The request body must be JSON in UTF-8, not charset=${charset}.`)
      }
      assert.equal(await firstName(), '')
    })

    it('should read a body declared as UTF-8 in any spelling', async () => {
      for (const contentType of ['application/json; charset=utf-8', 'application/json; charset="UTF-8"', 'application/json;charset=UTF8']) {
        const raw = JSON.stringify({ customer: { customer_id: customerId, customer_name: 'José García' } })
        ok(await rename(raw, contentType))
      }
      assert.equal(await firstName(), 'José')
    })

    it('should answer 400 invalid_json for bytes that are not UTF-8, storing nothing in their place', async () => {
      const head = Buffer.from(`{"customer":{"customer_id":"${customerId}","customer_name":"Ren`)
      const tail = Buffer.from(' Doe"}}')
      // A Latin-1 é, an overlong "/", a surrogate encoded on its own (CESU-8), a lone continuation byte.
      for (const bad of [[0xe9], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0x80]]) {
        const response = await rename(Buffer.concat([head, Buffer.from(bad), tail]), 'application/json')
        const body = problem(response, 'invalid_json')
        assert.equal(response.statusCode, 400)
        assert.equal(body.detail, 'The request body is not valid UTF-8.')
      }
      assert.equal(await firstName(), 'José')
    })

    it('should answer 415 with Accept-Encoding: identity for a compressed body, real or claimed', async () => {
      const json = JSON.stringify({ customer: { customer_id: customerId, customer_name: 'Zipped Name' } })
      for (const [coding, raw] of [
        ['gzip', gzipSync(json)],
        ['gzip', Buffer.from(json)],
        ['x-unknown', Buffer.from(json)],
        ['deflate, gzip', Buffer.from(json)]
      ] as const) {
        const response = await rename(raw, 'application/json', { 'content-encoding': coding })
        const body = problem(response, 'unsupported_media_type')
        assert.equal(response.statusCode, 415)
        assert.equal(response.headers['accept-encoding'], 'identity')
        assert.equal(body.detail, `The request body must be sent uncompressed, not with Content-Encoding: ${coding}.`)
      }
      assert.equal(await firstName(), 'José')
      // identity is no coding at all.
      const identity = JSON.stringify({ customer: { customer_id: customerId, customer_name: 'Plain Name' } })
      ok(await rename(identity, 'application/json', { 'content-encoding': 'identity' }))
      assert.equal(await firstName(), 'Plain')
    })

    it('should ignore a Content-Encoding sent to an operation that takes no body (D-23)', async () => {
      const response = await t.post('/v1/service/stats', undefined, {
        raw: gzipSync('{}'),
        contentType: 'text/plain',
        headers: { 'content-encoding': 'gzip' }
      })
      assert.deepEqual(ok(response), { service_stats: [] })
    })

    /** Sends `text` on a new connection and waits until the server has answered and closed it. */
    async function exchange(text: string): Promise<RawClient> {
      const client = new RawClient(port)
      await client.connected
      client.write(text)
      await client.closedWithin(GENEROUS_MS)
      return client
    }

    it("should answer 400 validation_failed for an HTTP/1.1 request without Host, with the caller's request id", async () => {
      const client = await exchange(
        `POST /v1/service/stats HTTP/1.1\r\nX-Request-Id: no-host-1\r\nAuthorization: ${t.auth.staff}\r\nConnection: close\r\n\r\n`
      )
      assertProblem(client, 400, 'validation_failed', 'no-host-1')
      assert.deepEqual(client.response().body.errors, [{ field: '', message: 'is not valid HTTP/1.1: it has no Host header' }])
      // HTTP/1.0 has no Host requirement.
      const old = await exchange(`POST /v1/service/stats HTTP/1.0\r\nAuthorization: ${t.auth.staff}\r\n\r\n`)
      assert.equal(old.response().status, 200)
    })

    it('should answer 400 for Host, Authorization or Content-Type sent twice, in any case', async () => {
      for (const [twice, name] of [
        ['Host: a\r\nhost: b\r\n', 'host'],
        [`Host: a\r\nAuthorization: ${t.auth.staff}\r\n`, 'authorization'],
        ['Host: a\r\nContent-Type: text/plain\r\nCONTENT-TYPE: application/json\r\n', 'content-type']
      ] as const) {
        const client = await exchange(
          `POST /v1/service/stats HTTP/1.1\r\n${twice}Authorization: ${t.auth.staff}\r\nConnection: close\r\n\r\n`
        )
        assertProblem(client, 400, 'validation_failed')
        assert.equal(client.response().body.detail, `The request is not valid HTTP/1.1: it has more than one ${name} header.`)
      }
    })

    it('should serve a request with an Expect it does not know as if it had none', async () => {
      const client = await exchange(
        `POST /v1/service/stats HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\nAuthorization: ${t.auth.staff}\r\nConnection: close\r\n\r\n`
      )
      const response = client.response()
      assert.equal(response.status, 200)
      assert.deepEqual(response.body, { service_stats: [] })
    })

    it('should answer CONNECT with 405 and an empty Allow, not a dropped connection', async () => {
      const client = await exchange(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Request-Id: tunnel-1\r\n\r\n`)
      assertProblem(client, 405, 'method_not_allowed', 'tunnel-1')
      assert.equal(client.response().headers.allow, '')
      assert.equal(client.response().body.detail, 'This server is not a proxy: CONNECT is not served.')
    })

    it('should name what could not be read in a malformed request', async () => {
      const line = await exchange('post /v1/service/stats HTTP/1.1\r\nHost: a\r\n\r\n')
      assertProblem(line, 400, 'validation_failed')
      assert.equal(line.response().body.detail, 'The request is not valid HTTP/1.1: its request line could not be read.')
      const header = await exchange('POST /v1/service/stats HTTP/1.1\r\nHost : a\r\n\r\n')
      assertProblem(header, 400, 'validation_failed')
      assert.equal(header.response().body.detail, 'The request is not valid HTTP/1.1: its headers could not be read.')
    })

    it("should answer a body too slow with 408 under the caller's request id (D-73)", async () => {
      const client = new RawClient(port)
      await client.connected
      client.write(
        `POST /v1/customer/search HTTP/1.1\r\nHost: a\r\nX-Request-Id: slow-body-1\r\nAuthorization: ${t.auth.staff}\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"q`
      )
      await client.closedWithin(GENEROUS_MS)
      assertProblem(client, 408, 'request_timeout', 'slow-body-1')
    })

    it('should log a client that leaves mid-body as such: no "database unavailable", no stack, the same on both databases', async () => {
      const before = t.logs.length
      const client = new RawClient(port)
      await client.connected
      client.write(
        `POST /v1/customer/search HTTP/1.1\r\nHost: a\r\nX-Request-Id: gone-1\r\nAuthorization: ${t.auth.staff}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"query":`
      )
      // Once the server has the headers, the client goes.
      await new Promise((resolve) => setTimeout(resolve, 100))
      client.socket.destroy()
      const line = await waitForLog(t.logs, before, 'gone-1')
      assert.deepEqual(
        { level: line.level, msg: line.msg, method: line.method, route: line.route },
        { level: 30, msg: 'client closed the connection before its request was read', method: 'POST', route: '/v1/customer/search' }
      )
      const mine = t.logs.slice(before).filter((l) => l.includes('gone-1'))
      assert.ok(
        mine.every((l) => !l.includes('stack') && !l.includes('database unavailable')),
        mine.join('\n')
      )
    })
  },
  { HTTP_REQUEST_TIMEOUT_MS: '800', HTTP_HEADERS_TIMEOUT_MS: '400' }
)

/** The first log line after `from` carrying this request id, waiting for it a while. */
async function waitForLog(logs: string[], from: number, requestId: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + GENEROUS_MS
  while (Date.now() < deadline) {
    const line = logs.slice(from).find((l) => l.includes(`"request_id":"${requestId}"`))
    if (line !== undefined) return JSON.parse(line) as Record<string, unknown>
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`no log line for ${requestId}: ${logs.slice(from).join('\n')}`)
}
