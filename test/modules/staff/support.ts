import assert from 'node:assert/strict'
import type { LightMyRequestResponse } from 'fastify'
import type { TestApp } from '../../helpers/app.js'
import { ok } from '../../helpers/assertions.js'

/** A staff user made through the API, with the password they sign in with. */
export interface TestStaff {
  staff_id: string
  email: string
  name: string
  role: 'admin' | 'staff'
  password: string
}

let sequence = 0

/** Makes an active staff user with a password, through POST /v1/staff/create as the admin key. */
export async function createStaff(t: TestApp, role: 'admin' | 'staff' = 'staff', name = `Sam ${++sequence}`): Promise<TestStaff> {
  const email = `staff${++sequence}.${Date.now()}@example.com`
  const password = `pass-word-${sequence}`
  const view = ok(await t.post('/v1/staff/create', { email, name, role, password }, { auth: t.auth.admin }))
  return { staff_id: view.staff_id, email, name, role, password }
}

/** A signed-in console session: its cookie header value and its CSRF token. */
export interface Session {
  cookie: string
  csrf: string
  token: string
}

let address = 0

/** POST /console/session from `from` (by default an address of its own, so D-14's per-address limit stays out of the way). */
export function postSignIn(t: TestApp, body: unknown, from = `10.9.${Math.floor(++address / 250)}.${(address % 250) + 1}`) {
  return t.app.inject({
    method: 'POST',
    url: '/console/session',
    remoteAddress: from,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(body)
  })
}

/** Signs in through POST /console/session; asserts 200 and answers the session. */
export async function signIn(t: TestApp, email: string, password: string): Promise<Session> {
  const response = await postSignIn(t, { email, password })
  const body = ok(response)
  const match = /^so_session=([A-Za-z0-9_-]{43});/.exec(String(response.headers['set-cookie']))
  assert.ok(match, String(response.headers['set-cookie']))
  return { cookie: `so_session=${match[1]}`, csrf: body.csrf_token, token: match[1]! }
}

/** A request with the session's cookie and (unless told otherwise) its CSRF token, and no Authorization header. */
export function withSession(
  t: TestApp,
  session: Session,
  path: string,
  body?: unknown,
  options: { csrf?: string | null; auth?: string | null; headers?: Record<string, string> } = {}
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { cookie: session.cookie, ...options.headers }
  const csrf = options.csrf === undefined ? session.csrf : options.csrf
  if (csrf !== null) headers['x-csrf-token'] = csrf
  return t.post(path, body, { auth: options.auth ?? null, headers })
}

/** Outbox rows of staff invitations, oldest first. */
export async function invitations(t: TestApp): Promise<Array<{ channel: string; customer_id: string | null; payload: string }>> {
  return t.database.db
    .selectFrom('outbox')
    .select(['channel', 'customer_id', 'payload'])
    .where('template', '=', 'staff_invitation')
    .orderBy('id')
    .execute()
}
