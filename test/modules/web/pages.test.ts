import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import Fastify from 'fastify'
import { sqliteDialect } from '../../../src/db/dialect.js'
import { webModule } from '../../../src/modules/web/index.js'
import { BuiltPages } from '../../../src/modules/web/pages.js'
import type { App } from '../../../src/platform/app-types.js'
import { registerErrorHandling } from '../../../src/platform/error-handler.js'
import { createLogger } from '../../../src/platform/logger.js'
import { ensureWebBuild } from '../../e2e/support/web-build.js'
import { TestApp } from '../../helpers/app.js'
import { problem } from '../../helpers/assertions.js'

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"

/** GET without credentials. */
const get = (t: TestApp, url: string) => t.post(url, undefined, { method: 'GET', auth: null })

/** The page headers of issue 9: strict CSP, never framed, never cached, no Referer. */
function assertPageHeaders(headers: Record<string, unknown>): void {
  assert.equal(headers['content-type'], 'text/html; charset=utf-8')
  assert.equal(headers['content-security-policy'], CSP)
  assert.equal(headers['x-frame-options'], 'DENY')
  assert.equal(headers['cache-control'], 'no-store')
  assert.equal(headers['referrer-policy'], 'no-referrer')
  assert.equal(headers['x-content-type-options'], 'nosniff')
}

/** The script and style files a built page loads; asserts it has no inline script or style. */
function assetsOf(html: string): string[] {
  assert.doesNotMatch(html, /<script(?![^>]*\ssrc=)[^>]*>/, 'no inline script')
  assert.doesNotMatch(html, /<style[\s>]/, 'no inline style')
  assert.doesNotMatch(html, /\sstyle=/, 'no style attribute')
  return [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]!)
}

describe('the console and tracking pages as static files (issue 9)', () => {
  const t = new TestApp('sqlite')
  before(async () => {
    ensureWebBuild()
    await t.start()
  })
  after(() => t.stop())

  it('should redirect /console to /console/', async () => {
    const response = await get(t, '/console')
    assert.equal(response.statusCode, 308)
    assert.equal(response.headers.location, '/console/')
  })

  it('should redirect / to the console with 302 and no body (D-75)', async () => {
    for (const method of ['GET', 'HEAD'] as const) {
      const response = await t.app.inject({ method, url: '/' })
      assert.equal(response.statusCode, 302, method)
      assert.equal(response.headers.location, '/console/', method)
      assert.equal(response.body, '', method)
    }
  })

  it('should serve the console page with its headers, its script and style from this origin only', async () => {
    const response = await get(t, '/console/')
    assert.equal(response.statusCode, 200)
    assertPageHeaders(response.headers)
    const assets = assetsOf(response.body)
    assert.ok(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')), assets.join(' '))
    for (const asset of assets) {
      const file = await get(t, asset)
      assert.equal(file.statusCode, 200, asset)
      assert.match(String(file.headers['content-type']), asset.endsWith('.css') ? /^text\/css/ : /^application\/javascript/)
      assert.equal(file.headers['cache-control'], 'public, max-age=31536000, immutable')
    }
  })

  it('should serve the tracking page for any token with the same headers; the token is checked by its status read', async () => {
    for (const token of ['A'.repeat(43), 'anything']) {
      const response = await get(t, `/track/${token}`)
      assert.equal(response.statusCode, 200)
      assertPageHeaders(response.headers)
      assert.ok(assetsOf(response.body).some((a) => /\/track-[^/]+\.js$/.test(a)))
    }
  })

  it('should answer a missing asset, a folder, a dot file or another method with a 404 problem document', async () => {
    problem(await get(t, '/console/assets/missing.js'), 'route_not_found')
    problem(await get(t, '/console/assets/'), 'route_not_found')
    problem(await get(t, '/console/assets/../index.html'), 'route_not_found')
    problem(await get(t, '/console/assets/.built'), 'route_not_found')
    problem(await get(t, '/console/assets/x%00.js'), 'route_not_found')
    problem(await t.post('/console/', undefined, { auth: null }), 'route_not_found')
  })

  it('should keep the pages out of the /v1 operations and document them without credentials', async () => {
    const document = JSON.parse((await get(t, '/openapi.json')).body)
    assert.equal(document.paths['/console/'].get.operationId, 'consolePage')
    assert.equal(document.paths['/track/{token}'].get.operationId, 'trackingPage')
    assert.deepEqual(document.paths['/console/'].get.security, [])
    assert.equal(
      Object.keys(document.paths).some((p) => p.startsWith('/console/assets')),
      false
    )
  })
})

describe('the console when it has not been built (issue 9)', () => {
  let app: App
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'so-web-'))
  before(async () => {
    app = Fastify() as unknown as App
    registerErrorHandling(app, sqliteDialect)
    await app.register(webModule({ logger: createLogger('silent') }, new BuiltPages(empty)))
    await app.ready()
  })
  after(async () => {
    await app.close()
    fs.rmSync(empty, { recursive: true, force: true })
  })

  it('should say how to build it, in a 404 problem document', async () => {
    for (const url of ['/console/', '/track/abc']) {
      const response = await app.inject({ method: 'GET', url })
      assert.equal(response.statusCode, 404)
      assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8')
      assert.match(response.json().detail, /npm run build:web/)
    }
  })
})
