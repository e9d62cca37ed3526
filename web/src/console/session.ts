import { ApiError, getJson, postJson } from '../shared/http'
import type { ConsoleConfig, ConsoleSession } from '../shared/staff-types'

// D-16: the session itself is an HttpOnly cookie the page never sees. This tab keeps only the CSRF
// token its sign-in returned, in sessionStorage: closing the tab or signing out forgets it. Who is
// signed in is asked of the server (GET /console/session) and held in memory. No API key is kept.
const STORED = 'service-ordering.csrf-token'
// Where earlier consoles kept a staff API key, or the whole session: removed wherever still found.
const OLD_KEYS = ['service-ordering.staff-key', 'service-ordering.session']

/** The signed-in staff member of this tab. */
export type SignedIn = ConsoleSession

function storage(): Storage | null {
  try {
    return window.sessionStorage
  } catch {
    return null
  }
}

/**
 * The session of this tab, if it signed in: its CSRF token from sessionStorage, and who it is from
 * the server. Null when the tab holds no token, or the session has ended (the token is then forgotten).
 */
export async function resumeSession(): Promise<SignedIn | null> {
  const store = storage()
  for (const key of OLD_KEYS) store?.removeItem(key)
  const csrfToken = store?.getItem(STORED) ?? ''
  if (csrfToken === '') return null
  try {
    const owner = await getJson<Omit<SignedIn, 'csrf_token'>>('/console/session', { 'x-csrf-token': csrfToken })
    return { ...owner, csrf_token: csrfToken }
  } catch (error) {
    // An ended session forgets its token; a server that cannot answer now leaves it for a reload.
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) forgetSession()
    return null
  }
}

function storeToken(session: SignedIn): void {
  storage()?.setItem(STORED, session.csrf_token)
}

/** Signing out: nothing of the session stays in the tab. */
export function forgetSession(): void {
  storage()?.removeItem(STORED)
  for (const key of OLD_KEYS) storage()?.removeItem(key)
}

/** The shop's name, time zone and whether the first admin is still to be made (public). */
export function loadConfig(): Promise<ConsoleConfig> {
  return getJson<ConsoleConfig>('/console/config')
}

/** Signs in with e-mail and password: the server sets the session cookie and answers the CSRF token. */
export async function startSession(email: string, password: string): Promise<SignedIn> {
  const session = await postJson<SignedIn>('/console/session', { email, password }, {}, 'same-origin')
  storeToken(session)
  return session
}

/** Ends the session on the server; the tab forgets it whatever the answer. */
export async function endSession(session: SignedIn | null): Promise<void> {
  forgetSession()
  if (session === null) return
  await postJson('/console/session/end', undefined, { 'x-csrf-token': session.csrf_token }, 'same-origin').catch(() => undefined)
}
