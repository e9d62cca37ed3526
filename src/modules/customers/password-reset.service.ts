import type { Static } from 'typebox'
import type { Clock } from '../../common/clock.js'
import { encrypt, hashPassword, sha256Hex } from '../../common/crypto.js'
import { newSecret } from '../../common/ids.js'
import type { Database } from '../../db/database.js'
import type { Authenticator } from '../../platform/auth.js'
import { emailOf } from '../../platform/credential-fields.js'
import { problems } from '../../platform/problems.js'
import { type OutboxWriter, outboxWriter } from '../notifications/index.js'
import type { MessageResponse, ResetConfirmBody, ResetRequestBody, StatusResponse } from './access.schemas.js'
import { type CustomersRepository, customersRepository } from './customers.repository.js'
import { type PasswordResetRepository, passwordResetRepository } from './password-reset.repository.js'

/** D-36: the one answer to every reset request, whether the address is known or not. */
export const RESET_REQUESTED_MESSAGE = 'If an account exists for that address, an e-mail with a password reset link has been sent.'

/** D-36: a reset link works for one hour. */
const RESET_TOKEN_TTL_MS = 60 * 60 * 1000

// At most this many reset e-mails per customer per hour, so nobody can flood an inbox through us;
// further requests get the same answer and send nothing.
const MAX_RESETS_PER_HOUR = 5

/** Password reset: links sent through the outbox (D-36), and setting the new password (D-37). */
export class PasswordResetService {
  private readonly customers: CustomersRepository
  private readonly tokens: PasswordResetRepository
  private readonly outbox: OutboxWriter

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly dataKey: Buffer,
    private readonly auth: Authenticator,
    private readonly publicUrl: string
  ) {
    this.customers = customersRepository(database)
    this.tokens = passwordResetRepository(database)
    this.outbox = outboxWriter(database)
  }

  /**
   * D-36: for a known e-mail, a single-use one-hour token stored only as its SHA-256, and an
   * e-mail with the link queued in the same transaction (the dispatcher delivers it). The link
   * holds the token, so it travels sealed with the data key. The answer is the same for any address.
   */
  async request(body: Static<typeof ResetRequestBody>): Promise<Static<typeof MessageResponse>> {
    const email = emailOf(body.email, '/email')
    const customer = await this.customers.idByEmail(email)
    if (customer !== undefined) {
      await this.database.unitOfWork.run(async (tx) => {
        const now = this.clock.now()
        if ((await this.tokens.issuedSince(tx, customer.id, now - RESET_TOKEN_TTL_MS)) >= MAX_RESETS_PER_HOUR) return
        const token = newSecret()
        await this.tokens.insert(tx, {
          token_hash: sha256Hex(token),
          customer_id: customer.id,
          created_at: now,
          expires_at: now + RESET_TOKEN_TTL_MS
        })
        const link = `${this.publicUrl}/reset-password?token=${encodeURIComponent(token)}`
        await this.outbox.enqueue(
          tx,
          [
            {
              channel: 'email',
              template: 'password_reset',
              orderId: null,
              customerId: customer.id,
              payload: { email, sealed_link: encrypt(this.dataKey, link) }
            }
          ],
          now
        )
      })
    }
    return { message: RESET_REQUESTED_MESSAGE }
  }

  /**
   * D-37: sets the new password and spends the token in one transaction; a bad, spent or expired
   * token is 400 `invalid_token`. Every other link of the customer dies with it, and so does any
   * cached credential (D-13).
   */
  async confirm(body: Static<typeof ResetConfirmBody>): Promise<Static<typeof StatusResponse>> {
    const tokenHash = sha256Hex(body.token)
    // A dead token is turned away before the slow hash; the transaction checks again.
    if ((await this.tokens.findLive(tokenHash, this.clock.now())) === undefined) throw problems.invalidToken()
    const passwordHash = await hashPassword(body.password)
    const customerId = await this.database.unitOfWork.run(async (tx) => {
      const now = this.clock.now()
      const spent = await this.tokens.spend(tx, tokenHash, now)
      if (spent === undefined) throw problems.invalidToken()
      await this.tokens.spendAllOf(tx, spent.customer_id, now)
      await this.tokens.setPassword(tx, spent.customer_id, passwordHash, now)
      return spent.customer_id
    })
    this.auth.forgetCustomer(customerId)
    return { status: 'success' }
  }
}
