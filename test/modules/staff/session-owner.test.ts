import assert from 'node:assert/strict'
import { it } from 'node:test'
import { describeEachDialect } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { createStaff, signIn } from './support.js'

// The console's refusals challenge with a scheme browsers do not prompt for (D-16).
const SESSION_CHALLENGE = 'Session realm="service-ordering"'

describeEachDialect('GET /console/session: who a tab is signed in as (D-16)', (t) => {
  const owner = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/console/session', headers })

  it('should answer the staff user of a live session with its CSRF token, never cached', async () => {
    const staff = await createStaff(t, 'admin', 'Olga Berg')
    const session = await signIn(t, staff.email, staff.password)
    const response = await owner({ cookie: session.cookie, 'x-csrf-token': session.csrf })
    assert.equal(response.headers['cache-control'], 'no-store')
    assert.deepEqual(ok(response), { staff_id: staff.staff_id, name: 'Olga Berg', role: 'admin' })
  })

  it('should answer 403 csrf_failed without the token or with another', async () => {
    const staff = await createStaff(t)
    const session = await signIn(t, staff.email, staff.password)
    problem(await owner({ cookie: session.cookie }), 'csrf_failed')
    problem(await owner({ cookie: session.cookie, 'x-csrf-token': 'x'.repeat(43) }), 'csrf_failed')
  })

  it('should answer 401 with the session challenge, not Basic, without a cookie, to Basic credentials and after sign-out', async () => {
    const staff = await createStaff(t)
    const session = await signIn(t, staff.email, staff.password)
    const refusals = [
      await owner({}),
      await owner({ 'x-csrf-token': session.csrf }),
      await owner({ authorization: t.auth.admin }),
      await owner({ cookie: 'so_session=unknown', 'x-csrf-token': session.csrf })
    ]
    ok(await t.post('/console/session/end', undefined, { auth: null, headers: { cookie: session.cookie } }))
    refusals.push(await owner({ cookie: session.cookie, 'x-csrf-token': session.csrf }))
    for (const response of refusals) {
      problem(response, 'unauthenticated')
      assert.equal(response.headers['www-authenticate'], SESSION_CHALLENGE)
    }
  })

  it('should answer 401 once the user is disabled', async () => {
    const staff = await createStaff(t)
    const session = await signIn(t, staff.email, staff.password)
    ok(await t.post('/v1/staff/update', { staff_id: staff.staff_id, status: 'disabled' }, { auth: t.auth.admin }))
    problem(await owner({ cookie: session.cookie, 'x-csrf-token': session.csrf }), 'unauthenticated')
  })
})
