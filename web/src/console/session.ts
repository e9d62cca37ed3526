import { getJson, postJson } from '../shared/http'
import type { ConsoleConfig, ConsoleSession } from '../shared/staff-types'

// D-16: the session itself is an HttpOnly cookie the page never sees. This tab keeps only the CSRF
// token its sign-in returned, with the name and role to show, in sessionStorage: closing the tab or
// signing out forgets them. No API key is kept anywhere.
const STORED = 'service-ordering.session'
// Where consoles before sessions kept a staff API key: removed wherever it is still found.
const OLD_KEY = 'service-ordering.staff-key'

/** The signed-in staff member of this tab. */
export type SignedIn = ConsoleSession

function storage(): Storage | null {
  try {
    return window.sessionStorage
  } catch {
    return null
  }
}

/** The session of this tab, if it signed in (a reload resumes it; a 401 later sends it to sign-in). */
export function storedSession(): SignedIn | null {
  const store = storage()
  store?.removeItem(OLD_KEY)
  try {
    const value = JSON.parse(store?.getItem(STORED) ?? 'null') as Partial<SignedIn> | null
    if (value === null || typeof value.csrf_token !== 'string' || value.csrf_token === '') return null
    return {
      staff_id: String(value.staff_id ?? ''),
      name: String(value.name ?? ''),
      role: value.role === 'admin' ? 'admin' : 'staff',
      csrf_token: value.csrf_token
    }
  } catch {
    return null
  }
}

export function storeSession(session: SignedIn): void {
  const { staff_id, name, role, csrf_token } = session
  storage()?.setItem(STORED, JSON.stringify({ staff_id, name, role, csrf_token }))
}

/** Signing out: nothing of the session stays in the tab. */
export function forgetSession(): void {
  storage()?.removeItem(STORED)
  storage()?.removeItem(OLD_KEY)
}

/** The shop's name, time zone and whether the first admin is still to be made (public). */
export function loadConfig(): Promise<ConsoleConfig> {
  return getJson<ConsoleConfig>('/console/config')
}

/** Signs in with e-mail and password: the server sets the session cookie and answers the CSRF token. */
export async function startSession(email: string, password: string): Promise<SignedIn> {
  const session = await postJson<SignedIn>('/console/session', { email, password }, {}, 'same-origin')
  storeSession(session)
  return session
}

/** Ends the session on the server; the tab forgets it whatever the answer. */
export async function endSession(session: SignedIn | null): Promise<void> {
  forgetSession()
  if (session === null) return
  await postJson('/console/session/end', undefined, { 'x-csrf-token': session.csrf_token }, 'same-origin').catch(() => undefined)
}
