import assert from 'node:assert/strict'
import { before, it } from 'node:test'
import { sha256Hex } from '../../../src/common/crypto.js'
import { describeEachDialect, type TestApp } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { createOrder } from '../../helpers/factories.js'
import { orderFixture } from '../orders/support.js'

const PUBLIC_URL = 'https://shop.example.com'
const LINK = new RegExp(`^${PUBLIC_URL.replace(/\./g, '\\.')}/track/([A-Za-z0-9_-]{43})$`)

/** The token of a tracking link, asserting its form: PUBLIC_URL/track/<32 bytes base64url>. */
function tokenOf(body: { tracking_url: string }): string {
  assert.deepEqual(Object.keys(body), ['tracking_url'])
  const match = LINK.exec(body.tracking_url)
  assert.ok(match, body.tracking_url)
  assert.equal(Buffer.from(match[1]!, 'base64url').length, 32)
  return match[1]!
}

/** The public read of the tracking page: no credentials at all. */
const status = (t: TestApp, token: string) => t.post(`/track/${token}/status`, undefined, { auth: null })

describeEachDialect(
  'tracking links and the public tracking status (issue 9)',
  (t) => {
    let f: Awaited<ReturnType<typeof orderFixture>>
    const link = (transactionId: string, auth?: string | null) =>
      t.post(`/v1/transaction/${transactionId}/tracking`, undefined, auth === undefined ? {} : { auth })
    const renew = (transactionId: string, options: { auth?: string | null; headers?: Record<string, string> } = {}) =>
      t.post(`/v1/transaction/${transactionId}/tracking/renew`, undefined, options)
    const move = async (transactionId: string) =>
      ok(await t.post('/v1/transaction/move', { customer_id: f.owner.id, transaction_id: transactionId }))

    before(async () => {
      f = await orderFixture(t)
    })

    it('should hand staff a PUBLIC_URL/track/<token> link, and the same link on every later call', async () => {
      const o = await createOrder(t, f.owner.id, f.serviceName)
      const first = tokenOf(ok(await link(o.transaction_id)))
      assert.equal(tokenOf(ok(await link(o.transaction_id))), first)
      assert.equal(tokenOf(ok(await link(o.transaction_id, t.auth.admin))), first)
      const other = await createOrder(t, f.owner.id, f.serviceName)
      assert.notEqual(tokenOf(ok(await link(other.transaction_id))), first)
    })

    it('should store the token only as its SHA-256 and sealed, never in the clear', async () => {
      const o = await createOrder(t, f.owner.id, f.serviceName)
      const token = tokenOf(ok(await link(o.transaction_id)))
      const rows = await t.database.db
        .selectFrom('tracking_tokens')
        .innerJoin('orders', 'orders.id', 'tracking_tokens.order_id')
        .select(['tracking_tokens.token_hash', 'tracking_tokens.sealed_token'])
        .where('orders.public_id', '=', o.transaction_id)
        .execute()
      assert.equal(rows.length, 1)
      assert.equal(rows[0]!.token_hash, sha256Hex(token))
      assert.ok(!rows[0]!.sealed_token.includes(token))
      assert.match(rows[0]!.sealed_token, /^v1\./)
    })

    it('should give concurrent first calls one and the same link', async () => {
      const o = await createOrder(t, f.owner.id, f.serviceName)
      const answers = await Promise.all(Array.from({ length: 6 }, () => link(o.transaction_id)))
      const tokens = new Set(answers.map((answer) => tokenOf(ok(answer))))
      assert.equal(tokens.size, 1)
    })

    it('should show the service, the current step, the progress bar and the timeline, without credentials', async () => {
      const o = await createOrder(t, f.owner.id, f.serviceName, { notes: 'Ring the bell twice' })
      const token = tokenOf(ok(await link(o.transaction_id)))
      const response = await status(t, token)
      const first = ok(response)
      assert.equal(response.headers['cache-control'], 'no-store')
      assert.equal(response.headers['referrer-policy'], 'no-referrer')
      assert.deepEqual(Object.keys(first), ['service_name', 'position', 'progress_bar', 'history'])
      assert.equal(first.service_name, f.serviceName)
      assert.deepEqual(first.position, { position_number: '1', position_description: 'Picked up' })
      assert.deepEqual(first.progress_bar, { total_steps: 3, percentage: 33.33333333333333 })
      assert.equal(first.history.length, 1)
      assert.deepEqual(Object.keys(first.history[0]), ['at', 'type', 'position_number', 'description'])
      assert.deepEqual(
        { ...first.history[0], at: undefined },
        { at: undefined, type: 'created', position_number: '1', description: 'Picked up' }
      )
      assert.match(first.history[0].at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)

      await move(o.transaction_id)
      const second = ok(await status(t, token))
      assert.deepEqual(second.position, { position_number: '2', position_description: 'Cleaning' })
      assert.deepEqual(second.progress_bar, { total_steps: 3, percentage: 66.66666666666666 })
      assert.deepEqual(
        second.history.map((h: Record<string, string>) => [h.type, h.position_number, h.description]),
        [
          ['created', '1', 'Picked up'],
          ['moved', '2', 'Cleaning']
        ]
      )
    })

    it('should tell nothing about the customer, the receipt, the note or who did what', async () => {
      const o = await createOrder(t, f.owner.id, f.serviceName, { notes: 'Key under the mat' })
      ok(await t.post('/v1/receipt/add', { transaction_id: o.transaction_id, item_id: f.suit }))
      ok(await t.post('/v1/receipt/add', { transaction_id: o.transaction_id, item_id: f.shirt }))
      ok(await t.post('/v1/receipt/remove', { transaction_id: o.transaction_id, item_id: f.shirt }))
      ok(await t.post('/v1/transaction/update', { transaction_id: o.transaction_id, note: 'Key under the blue mat' }))
      const token = tokenOf(ok(await link(o.transaction_id)))
      const response = await status(t, token)
      const body = ok(response)
      for (const secret of [
        f.owner.id,
        f.owner.email,
        'Olive',
        'Owner',
        'mat',
        'Suit',
        'Shirt',
        '19.99',
        o.transaction_id,
        String(o.transaction_code),
        'staff'
      ]) {
        assert.ok(!response.body.includes(secret), `the status names ${secret}: ${response.body}`)
      }
      // The note edit and the receipt changes are the shop's own: the journey is the placing alone.
      assert.deepEqual(
        body.history.map((h: Record<string, string>) => h.type),
        ['created']
      )
    })

    it('should keep working once the transaction is closed, with the closing in the timeline', async () => {
      const o = await createOrder(t, f.owner.id, f.serviceName)
      const token = tokenOf(ok(await link(o.transaction_id)))
      for (let i = 0; i < 3; i++) await move(o.transaction_id)
      const body = ok(await status(t, token))
      assert.deepEqual(body.position, { position_number: '3', position_description: 'Delivered' })
      assert.deepEqual(body.progress_bar, { total_steps: 3, percentage: 100 })
      assert.deepEqual(
        body.history.map((h: Record<string, string>) => h.type),
        ['created', 'moved', 'moved', 'closed']
      )
      assert.equal(tokenOf(ok(await link(o.transaction_id))), token)
    })

    it('should answer 404 transaction_not_found for an unknown or malformed token', async () => {
      for (const token of ['A'.repeat(43), 'nope', '%20', 'x'.repeat(400), 'x'.repeat(600), 'x'.repeat(5000), '%00']) {
        const body = problem(await status(t, token), 'transaction_not_found')
        assert.equal(body.detail, 'This tracking link is not valid; ask the shop for a new one.')
      }
    })

    it('should let a customer get the link of their own transaction only (D-11, D-12)', async () => {
      const o = await createOrder(t, f.owner.id, f.serviceName)
      const staffToken = tokenOf(ok(await link(o.transaction_id)))
      assert.equal(tokenOf(ok(await link(o.transaction_id, f.owner.auth))), staffToken)
      problem(await link(o.transaction_id, f.other.auth), 'transaction_not_found')
      problem(await renew(o.transaction_id, { auth: f.other.auth }), 'transaction_not_found')
      problem(await link(o.transaction_id, t.auth.app), 'forbidden')
      problem(await renew(o.transaction_id, { auth: t.auth.app }), 'forbidden')
      problem(await link(o.transaction_id, null), 'unauthenticated')
      problem(await renew(o.transaction_id, { auth: null }), 'unauthenticated')
      problem(await link('trx_missing'), 'transaction_not_found')
      problem(await renew('trx_missing'), 'transaction_not_found')
    })

    it('should replace the link on renew: the old token stops working, the new one is handed out from then on', async () => {
      const o = await createOrder(t, f.owner.id, f.serviceName)
      const old = tokenOf(ok(await link(o.transaction_id)))
      const renewed = tokenOf(ok(await renew(o.transaction_id, { auth: f.owner.auth })))
      assert.notEqual(renewed, old)
      problem(await status(t, old), 'transaction_not_found')
      ok(await status(t, renewed))
      assert.equal(tokenOf(ok(await link(o.transaction_id))), renewed)
      // A retried renew with its Idempotency-Key answers the same link and changes nothing (D-52).
      const headers = { 'idempotency-key': `renew-${o.transaction_id}` }
      const once = tokenOf(ok(await renew(o.transaction_id, { headers })))
      assert.equal(tokenOf(ok(await renew(o.transaction_id, { headers }))), once)
      assert.equal(tokenOf(ok(await link(o.transaction_id))), once)
      // The answer kept for the retry is sealed: the database never holds a live token in the clear.
      const kept = await t.database.db
        .selectFrom('idempotency_keys')
        .select('response')
        .where('key', '=', headers['idempotency-key'])
        .execute()
      assert.equal(kept.length, 1)
      assert.match(kept[0]!.response, /^v1\./)
      assert.ok(!kept[0]!.response.includes(once))
    })

    it('should renew on a first call whose stored token cannot be unsealed (another data key)', async () => {
      const o = await createOrder(t, f.owner.id, f.serviceName)
      const old = tokenOf(ok(await link(o.transaction_id)))
      await t.database.db
        .updateTable('tracking_tokens')
        .set({ sealed_token: 'v1.AAAA.AAAA.AAAA' })
        .where('token_hash', '=', sha256Hex(old))
        .execute()
      const fresh = tokenOf(ok(await link(o.transaction_id)))
      assert.notEqual(fresh, old)
      problem(await status(t, old), 'transaction_not_found')
      ok(await status(t, fresh))
    })

    it('should document the link operations with Basic credentials or a console session, and the status read without', async () => {
      const document = ok(await t.post('/openapi.json', undefined, { method: 'GET', auth: null }))
      const get = document.paths['/v1/transaction/{transaction_id}/tracking'].post
      assert.equal(get.operationId, 'getTrackingLink')
      assert.deepEqual(get.security, [{ basicAuth: [] }, { consoleSession: [], csrfToken: [] }])
      assert.deepEqual(get['x-callers'], ['customer', 'staff'])
      assert.equal(document.paths['/v1/transaction/{transaction_id}/tracking/renew'].post.operationId, 'renewTrackingLink')
      const read = document.paths['/track/{token}/status'].post
      assert.equal(read.operationId, 'getTrackingStatus')
      // No credentials: the token is the credential (issue 26: `security: []`, not left out).
      assert.deepEqual(read.security, [])
      assert.deepEqual(Object.keys(read.responses).sort(), ['200', '400', '404', '408', '429', '431', '500', '503'])
    })

    it('should limit the status read to 60 calls per address per minute, then 429 with Retry-After', async () => {
      const o = await createOrder(t, f.owner.id, f.serviceName)
      const token = tokenOf(ok(await link(o.transaction_id)))
      // A fresh window, whatever the tests above used.
      t.clock.advance(61_000)
      for (let i = 0; i < 60; i++) assert.equal((await status(t, i % 2 === 0 ? token : 'unknown')).statusCode, i % 2 === 0 ? 200 : 404)
      const limited = await status(t, token)
      problem(limited, 'rate_limited')
      assert.ok(Number(limited.headers['retry-after']) >= 1)
      // Its own counter: sign-in from the same address is not limited by it.
      assert.equal(
        (await t.post('/v1/customer/signin', { email: f.owner.email, password: 'owner password 1' }, { auth: t.auth.app })).statusCode,
        200
      )
      t.clock.advance(61_000)
      ok(await status(t, token))
    })
  },
  { PUBLIC_URL }
)
