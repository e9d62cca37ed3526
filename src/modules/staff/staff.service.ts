import type { Static } from 'typebox'
import type { Clock } from '../../common/clock.js'
import { encrypt, hashPassword, sha256Hex } from '../../common/crypto.js'
import { newId, newSecret } from '../../common/ids.js'
import type { Database } from '../../db/database.js'
import type { Tx } from '../../db/statement.js'
import type { Work } from '../../db/unit-of-work.js'
import { emailOf } from '../../platform/credential-fields.js'
import { problems } from '../../platform/problems.js'
import { type OutboxWriter, outboxWriter } from '../notifications/index.js'
import { type SessionsRepository, sessionsRepository } from './sessions.repository.js'
import { staffNameOf } from './staff.fields.js'
import { type StaffRepository, type StaffRow, staffRepository } from './staff.repository.js'
import type { CreateStaffBody, StaffView, UpdateStaffBody } from './staff.schemas.js'
import type { StaffRole } from './staff.table.js'
import { toStaffView } from './staff.views.js'

/** Runs a use case in one transaction: `useCases.run` for a request (Idempotency-Key, D-52), the unit of work for the CLI. */
export type RunUseCase = <T>(work: Work<T>) => Promise<T>

type View = Static<typeof StaffView>

/** D-15: a set-password link works for 72 hours. */
const SET_PASSWORD_TTL_MS = 72 * 60 * 60 * 1000

// Any fixed number; names the advisory lock that makes changes of staff users take turns, so two
// admins disabling each other at once cannot both pass the last-admin check (D-15).
const STAFF_CHANGES_LOCK = 7_301_015

/** What a new staff user is made from, checked. */
interface NewStaff {
  email: string
  name: string
  role: StaffRole
  passwordHash: string | null
}

/** Staff users (D-15): made, listed and changed by admins, through the API or the CLI. */
export class StaffService {
  private readonly users: StaffRepository
  private readonly sessions: SessionsRepository
  private readonly outbox: OutboxWriter

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly publicUrl: string,
    // Seals invitation links in the outbox; the CLI, which prints its link instead, has none.
    private readonly dataKey: Buffer | null
  ) {
    this.users = staffRepository(database)
    this.sessions = sessionsRepository(database)
    this.outbox = outboxWriter(database)
  }

  /** D-15 create: with a password the user can sign in at once; without one, an invitation e-mail is sent. */
  async create(body: Static<typeof CreateStaffBody>, run: RunUseCase): Promise<View> {
    const input = await this.checked(body)
    return run(async (tx) => {
      const { row, link } = await this.insert(tx, input)
      if (link !== null) await this.invite(tx, row, link)
      return toStaffView(row)
    })
  }

  /** The CLI's create (D-15): no password, and the set-password link is answered to be printed, not e-mailed. */
  async createWithLink(body: Omit<Static<typeof CreateStaffBody>, 'password'>, run: RunUseCase): Promise<{ view: View; link: string }> {
    const input = await this.checked(body)
    return run(async (tx) => {
      const { row, link } = await this.insert(tx, input)
      return { view: toStaffView(row), link: link! }
    })
  }

  /** D-15 list: every staff user, ordered by name. */
  async list(): Promise<{ staff: View[] }> {
    return { staff: (await this.users.list()).map(toStaffView) }
  }

  /** The staff user of an e-mail, if any (the CLI names users by e-mail). */
  async findByEmail(rawEmail: string): Promise<View | undefined> {
    const row = await this.users.byEmail(emailOf(rawEmail, '/email'))
    return row === undefined ? undefined : toStaffView(row)
  }

  /** True while no active admin staff user exists: the first one is still to be made. */
  async setupNeeded(): Promise<boolean> {
    return (await this.users.otherActiveAdmins('')) === 0
  }

  /**
   * D-15 update: fields left out are unchanged. The last active admin cannot be disabled or made
   * `staff` (409 `last_admin`). Disabling a user or setting their password ends their sessions at
   * once and spends their open set-password links.
   */
  async update(body: Static<typeof UpdateStaffBody>, run: RunUseCase): Promise<View> {
    const name = body.name === undefined ? undefined : staffNameOf(body.name, '/name')
    const passwordHash = body.password === undefined ? undefined : await hashPassword(body.password)
    return run(async (tx) => {
      await this.database.dialect.lockForTransaction(tx, STAFF_CHANGES_LOCK)
      const current = await this.users.byId(body.staff_id, tx)
      if (current === undefined) throw problems.staffNotFound()
      const next: StaffRow = {
        ...current,
        name: name ?? current.name,
        role: body.role ?? current.role,
        status: body.status ?? current.status
      }
      const wasAdmin = current.role === 'admin' && current.status === 'active'
      const staysAdmin = next.role === 'admin' && next.status === 'active'
      if (wasAdmin && !staysAdmin && (await this.users.otherActiveAdmins(current.id, tx)) === 0) throw problems.lastAdmin()
      const now = this.clock.now()
      if (next.name !== current.name || next.role !== current.role || next.status !== current.status) {
        await this.users.update(tx, { id: current.id, name: next.name, role: next.role, status: next.status, now })
      }
      if (passwordHash !== undefined) await this.users.setPassword(tx, current.id, passwordHash, now)
      if (passwordHash !== undefined || (next.status === 'disabled' && current.status !== 'disabled')) {
        await this.sessions.endAllOf(tx, current.id)
        await this.sessions.spendTokensOf(tx, current.id, now)
      }
      return toStaffView(next)
    })
  }

  /** The fields of a new user, checked, and the password hashed (slow: before the transaction). */
  private async checked(body: { email: string; name: string; role: StaffRole; password?: string }): Promise<NewStaff> {
    const email = emailOf(body.email, '/email')
    const name = staffNameOf(body.name, '/name')
    const passwordHash = body.password === undefined ? null : await hashPassword(body.password)
    return { email, name, role: body.role, passwordHash }
  }

  /** Inserts the user (409 `email_taken` for an address another staff user has); without a password, with a set-password link. */
  private async insert(tx: Tx, input: NewStaff): Promise<{ row: StaffRow; link: string | null }> {
    if ((await this.users.byEmail(input.email, tx)) !== undefined) throw problems.emailTaken('staff user')
    const now = this.clock.now()
    const row: StaffRow = { id: newId('stf'), email: input.email, name: input.name, role: input.role, status: 'active', created_at: now }
    try {
      await this.users.insert(tx, { ...row, password_hash: input.passwordHash, updated_at: now })
    } catch (error) {
      // Two creates of one address at once: the second is told as if it had come later.
      if (this.database.dialect.isUniqueViolation(error)) throw problems.emailTaken('staff user')
      throw error
    }
    if (input.passwordHash !== null) return { row, link: null }
    // D-15 with D-36's token rules: 32 random bytes, stored only as SHA-256, single use.
    const token = newSecret()
    await this.sessions.insertToken(tx, {
      token_hash: sha256Hex(token),
      staff_id: row.id,
      created_at: now,
      expires_at: now + SET_PASSWORD_TTL_MS
    })
    return { row, link: `${this.publicUrl}/console/set-password?token=${encodeURIComponent(token)}` }
  }

  /** Queues the invitation e-mail in the same transaction (D-60); its link holds a token, so it travels sealed. */
  private async invite(tx: Tx, row: StaffRow, link: string): Promise<void> {
    if (this.dataKey === null) throw new Error('an invitation e-mail needs the data key to seal its link')
    await this.outbox.enqueue(
      tx,
      [
        {
          channel: 'email',
          template: 'staff_invitation',
          orderId: null,
          customerId: null,
          payload: { email: row.email, name: row.name, sealed_link: encrypt(this.dataKey, link) }
        }
      ],
      this.clock.now()
    )
  }
}
