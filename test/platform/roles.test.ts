import assert from 'node:assert/strict'
import { before, it } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import type { DatabaseConfig } from '../../src/config.js'
import { ApiKeysService } from '../../src/modules/api-keys/api-keys.service.js'
import { basic, describeEachDialect, type TestApp } from '../helpers/app.js'
import { ok, problem } from '../helpers/assertions.js'
import { CLI, run } from '../helpers/processes.js'

type Caller = 'none' | 'wrong secret' | 'revoked' | 'app' | 'staff' | 'admin'
const CALLERS: Caller[] = ['none', 'wrong secret', 'revoked', 'app', 'staff', 'admin']

/** DATABASE_URL for a configuration's database. */
function urlOf(database: DatabaseConfig): string {
  return database.kind === 'sqlite' ? `sqlite:${database.file}` : database.url
}

/** The id of the key behind a Basic header. */
function keyIdOf(authorization: string): string {
  return Buffer.from(authorization.slice('Basic '.length), 'base64').toString('utf8').split(':')[0]!
}

describeEachDialect('who may call what (D-10, D-11, D-12)', (t: TestApp) => {
  const auth: Record<Caller, string | null> = { none: null, 'wrong secret': '', revoked: '', app: '', staff: '', admin: '' }
  let counter = 0

  before(async () => {
    auth.app = t.auth.app
    auth.staff = t.auth.staff
    auth.admin = t.auth.admin
    auth['wrong secret'] = basic(keyIdOf(t.auth.admin), 'not-the-secret-'.repeat(3))
    const keys = new ApiKeysService(t.database, t.clock)
    const revoked = await keys.create('admin', 'to be revoked')
    assert.equal(await keys.revoke(revoked.id), true)
    auth.revoked = basic(revoked.id, revoked.secret)
    ok(await t.post('/v1/service/create', { service_name: 'Laundry', description: 'Drop off' }))
    ok(await t.post('/v1/item/create', { service_name: 'Laundry', title: 'Shirt', price: 250 }))
  })

  /** A body that creates something new on each call. */
  const fresh = () => ({ service_name: `Service ${++counter}`, description: 'Step one' })

  const routes: Array<{ path: string; body?: () => unknown; expect: Record<Caller, number> }> = [
    {
      path: '/v1/service/stats',
      expect: { none: 401, 'wrong secret': 401, revoked: 401, app: 403, staff: 200, admin: 200 }
    },
    {
      path: '/v1/service/Laundry/1',
      expect: { none: 401, 'wrong secret': 401, revoked: 401, app: 200, staff: 200, admin: 200 }
    },
    {
      path: '/v1/service/Laundry',
      expect: { none: 401, 'wrong secret': 401, revoked: 401, app: 200, staff: 200, admin: 200 }
    },
    {
      path: '/v1/service/create',
      body: fresh,
      expect: { none: 401, 'wrong secret': 401, revoked: 401, app: 403, staff: 200, admin: 200 }
    },
    {
      path: '/v1/item/create',
      body: () => ({ service_name: 'Laundry', title: `Item ${++counter}`, price: 100 }),
      expect: { none: 401, 'wrong secret': 401, revoked: 401, app: 403, staff: 200, admin: 200 }
    }
  ]

  for (const route of routes) {
    for (const caller of CALLERS) {
      const status = route.expect[caller]
      it(`should answer ${status} to ${caller === 'none' ? 'no credentials' : `a ${caller} key`} on ${route.path}`, async () => {
        const response: LightMyRequestResponse = await t.post(route.path, route.body?.(), { auth: auth[caller] })
        if (status === 200) ok(response)
        else if (status === 401) {
          problem(response, 'unauthenticated')
          assert.equal(response.headers['www-authenticate'], 'Basic realm="service-ordering", charset="UTF-8"')
        } else problem(response, 'forbidden')
      })
    }
  }

  it('should refuse a forbidden caller before reading its body', async () => {
    const response = await t.post('/v1/service/create', undefined, { auth: t.auth.app, raw: '{not json', contentType: 'application/json' })
    problem(response, 'forbidden')
    const large = await t.post('/v1/service/create', { service_name: 'x', description: 'y'.repeat(100 * 1024) }, { auth: t.auth.app })
    problem(large, 'forbidden')
  })

  it('should refuse a key revoked through the service at once, with nothing cached', async () => {
    const keys = new ApiKeysService(t.database, t.clock)
    const key = await keys.create('staff', 'revoked while in use')
    const authorization = basic(key.id, key.secret)
    ok(await t.post('/v1/service/stats', undefined, { auth: authorization }))
    assert.equal(await keys.revoke(key.id), true)
    problem(await t.post('/v1/service/stats', undefined, { auth: authorization }), 'unauthenticated')
    // Revoking twice says there was no active key.
    assert.equal(await keys.revoke(key.id), false)
  })

  it('should refuse a key revoked through the CLI at once', async () => {
    const keys = new ApiKeysService(t.database, t.clock)
    const key = await keys.create('app', 'revoked by the CLI')
    const authorization = basic(key.id, key.secret)
    ok(await t.post('/v1/service/Laundry/1', undefined, { auth: authorization }))
    const result = await run(CLI, ['api-key', 'revoke', key.id], {
      DATABASE_URL: urlOf(t.config.database),
      DATA_DIR: t.config.dataDir
    })
    assert.equal(result.code, 0, result.stderr)
    assert.equal(result.stdout, `revoked ${key.id}\n`)
    problem(await t.post('/v1/service/Laundry/1', undefined, { auth: authorization }), 'unauthenticated')
  })
})
