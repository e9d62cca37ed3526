import type { Clock } from '../common/clock.js'
import { constantTimeEqual, sha256Hex } from '../common/crypto.js'
import type { Principal, StaffRole } from './principal.js'
import { problems } from './problems.js'

/** The cookie a console session travels in (D-16). */
export const SESSION_COOKIE = 'so_session'

/** D-16: a session ends 12 hours after its sign-in, whatever happens meanwhile. */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000

/** D-16: a session ends after 2 hours without a request. */
export const SESSION_IDLE_MS = 2 * 60 * 60 * 1000

// A session's last request is written down at most this often, not on every request: idle expiry
// then holds across processes for the price of one write a minute per active session.
const TOUCH_EVERY_MS = 60_000

/** A session as stored, with its staff user (only an active user's is found). */
export interface StoredSession {
  staff_id: string
  name: string
  role: StaffRole
  csrf_hash: string
  created_at: number
  last_seen_at: number
}

/** The stored side of console sessions; the staff module owns them, app.ts wires them in. */
export interface SessionStore {
  /** The session of this token hash, if its staff user is active. */
  findSession(tokenHash: string): Promise<StoredSession | undefined>
  /** Records a request of the session at `at`. */
  touchSession(tokenHash: string, at: number): Promise<void>
}

/** Whether a session is still live at `now` (D-16): within 12 hours of its sign-in and 2 hours of its last request. */
function sessionIsLive(session: Pick<StoredSession, 'created_at' | 'last_seen_at'>, now: number): boolean {
  return now < session.created_at + SESSION_LIFETIME_MS && now < session.last_seen_at + SESSION_IDLE_MS
}

/** The session token of a Cookie header (RFC 6265 `name=value; …`), if it carries a non-empty one. */
export function sessionTokenOf(cookieHeader: string | undefined): string | undefined {
  if (cookieHeader === undefined) return undefined
  for (const pair of cookieHeader.split(';')) {
    const equals = pair.indexOf('=')
    if (equals === -1 || pair.slice(0, equals).trim() !== SESSION_COOKIE) continue
    const value = pair.slice(equals + 1).trim()
    return value === '' ? undefined : value
  }
  return undefined
}

/**
 * Console sessions as credentials (D-16): an unknown, ended or expired session (or one of a
 * disabled user) is 401; a live one without the CSRF token its sign-in returned is 403
 * `csrf_failed`; else the request is its staff user's, with their role.
 */
export class SessionAuthenticator {
  constructor(
    private readonly store: SessionStore,
    private readonly clock: Clock
  ) {}

  async authenticate(token: string, csrfToken: string | string[] | undefined): Promise<Principal> {
    const tokenHash = sha256Hex(token)
    const session = await this.store.findSession(tokenHash)
    const now = this.clock.now()
    if (session === undefined || !sessionIsLive(session, now)) throw problems.sessionEnded()
    // Compared as hashes of equal length, in constant time: the token is stored only hashed.
    if (typeof csrfToken !== 'string' || !constantTimeEqual(sha256Hex(csrfToken), session.csrf_hash)) throw problems.csrfFailed()
    // A lost touch only makes idle expiry count from the one before; it never fails the request.
    if (now - session.last_seen_at >= TOUCH_EVERY_MS) await this.store.touchSession(tokenHash, now).catch(() => {})
    return { kind: 'staff', role: session.role, staffId: session.staff_id, name: session.name }
  }
}
