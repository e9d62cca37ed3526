import type { Static } from 'typebox'
import type { Clock } from '../../common/clock.js'
import { hashPassword, sha256Hex } from '../../common/crypto.js'
import { newSecret } from '../../common/ids.js'
import type { Database } from '../../db/database.js'
import type { Authenticator } from '../../platform/auth.js'
import { emailOf } from '../../platform/credential-fields.js'
import { problems } from '../../platform/problems.js'
import { type SessionsRepository, sessionsRepository } from './sessions.repository.js'
import { type StaffRepository, staffRepository } from './staff.repository.js'
import type { SessionBody, SessionView, SetPasswordBody } from './staff.schemas.js'

/** Console sessions (D-16) and setting a password with an invitation link (D-15). */
export class ConsoleService {
  private readonly users: StaffRepository
  private readonly sessions: SessionsRepository

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly auth: Authenticator
  ) {
    this.users = staffRepository(database)
    this.sessions = sessionsRepository(database)
  }

  /**
   * D-16 sign-in: a new session for an active staff user's e-mail and password, as its token (for
   * the cookie) and the view with its CSRF token. Both are 32 random bytes, stored only hashed. A
   * wrong pair, an unknown e-mail and a disabled user are all 401 `invalid_login`, in about the same
   * time; past D-14's limits, 429 (the authenticator counts them).
   */
  async signIn(body: Static<typeof SessionBody>): Promise<{ token: string; view: Static<typeof SessionView> }> {
    const staffId = await this.auth.checkStaffPassword(emailOf(body.email, '/email'), body.password)
    const user = staffId === null ? undefined : await this.users.byId(staffId)
    if (user === undefined || user.status !== 'active') throw problems.invalidConsoleLogin()
    const token = newSecret()
    const csrfToken = newSecret()
    const now = this.clock.now()
    await this.database.unitOfWork.run((tx) =>
      this.sessions.insert(tx, { token_hash: sha256Hex(token), staff_id: user.id, csrf_hash: sha256Hex(csrfToken), now })
    )
    return { token, view: { staff_id: user.id, name: user.name, role: user.role, csrf_token: csrfToken } }
  }

  /** D-16 sign-out: the session of this token ends; no token, or one already ended, changes nothing. */
  async end(token: string | undefined): Promise<void> {
    if (token === undefined) return
    await this.database.unitOfWork.run((tx) => this.sessions.end(tx, sha256Hex(token)))
  }

  /**
   * D-15: sets the password of the link's staff user and spends the token in one transaction; a
   * bad, spent or expired token is 400 `invalid_token`. Their other links and sessions end with it.
   */
  async setPassword(body: Static<typeof SetPasswordBody>): Promise<void> {
    const tokenHash = sha256Hex(body.token)
    // A dead token is turned away before the slow hash; the transaction checks again.
    if ((await this.sessions.liveToken(tokenHash, this.clock.now())) === undefined) throw problems.invalidToken('set-password')
    const passwordHash = await hashPassword(body.password)
    await this.database.unitOfWork.run(async (tx) => {
      const now = this.clock.now()
      const spent = await this.sessions.spendToken(tx, tokenHash, now)
      if (spent === undefined) throw problems.invalidToken('set-password')
      await this.sessions.spendTokensOf(tx, spent.staff_id, now)
      await this.users.setPassword(tx, spent.staff_id, passwordHash, now)
      await this.sessions.endAllOf(tx, spent.staff_id)
    })
  }
}
