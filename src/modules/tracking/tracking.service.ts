import type { Static } from 'typebox'
import type { Clock } from '../../common/clock.js'
import { decrypt, encrypt, sha256Hex } from '../../common/crypto.js'
import { newSecret } from '../../common/ids.js'
import type { Database } from '../../db/database.js'
import type { Caller, UseCaseRunner } from '../../platform/idempotency.js'
import type { Principal } from '../../platform/principal.js'
import { Problem, problems } from '../../platform/problems.js'
import { assertVisible } from '../orders/index.js'
import { type TrackedOrder, type TrackingRepository, trackingRepository } from './tracking.repository.js'
import type { TrackingLinkResponse, TrackingStatusResponse } from './tracking.schemas.js'
import { toTrackingStatusView } from './tracking.views.js'

/** An unknown, replaced or malformed tracking token: 404, like a transaction that does not exist. */
function unknownTrackingLink(): Problem {
  return new Problem('transaction_not_found', 'This tracking link is not valid; ask the shop for a new one.')
}

/**
 * Tracking links for customers. Each order has at most one live token: 32 random bytes,
 * base64url, stored as its SHA-256 (how the public page finds it) and sealed with the data key
 * (so asking again hands out the same link instead of piling up live tokens). Renewing replaces
 * it, and the old link stops working at once.
 */
export class TrackingService {
  private readonly repo: TrackingRepository

  constructor(
    private readonly database: Database,
    private readonly useCases: UseCaseRunner,
    private readonly clock: Clock,
    private readonly dataKey: Buffer,
    private readonly publicUrl: string
  ) {
    this.repo = trackingRepository(database)
  }

  /** The order's tracking link, made on the first call and the same on every later one. */
  async link(publicId: string, principal: Principal): Promise<Static<typeof TrackingLinkResponse>> {
    const order = await this.visibleOrder(publicId, principal)
    // The usual case reads only; a write transaction is opened only for the first link.
    const known = this.unseal(await this.repo.sealedOf(order.id))
    if (known !== undefined) return this.view(known)
    const token = await this.database.unitOfWork.run(async (tx) => {
      const fresh = this.sealedToken()
      await this.repo.insert(tx, { orderId: order.id, ...fresh, now: this.clock.now() })
      const stored = this.unseal(await this.repo.sealedOf(order.id, tx))
      if (stored !== undefined) return stored
      // A token sealed under another data key can never be shown again: replace it.
      await this.repo.replace(tx, { orderId: order.id, ...fresh, now: this.clock.now() })
      return fresh.token
    })
    return this.view(token)
  }

  /** A new tracking link for the order; the previous one stops working (a link that leaked). */
  async renew(publicId: string, caller: Caller): Promise<Static<typeof TrackingLinkResponse>> {
    const order = await this.visibleOrder(publicId, caller.principal)
    return this.useCases.run(caller, async (tx) => {
      const fresh = this.sealedToken()
      await this.repo.replace(tx, { orderId: order.id, ...fresh, now: this.clock.now() })
      return this.view(fresh.token)
    })
  }

  /** What the public page shows for a token: 404 for any token that is not live. */
  async status(token: string): Promise<Static<typeof TrackingStatusResponse>> {
    const order = await this.repo.status(sha256Hex(token))
    if (order === undefined) throw unknownTrackingLink()
    return toTrackingStatusView(order, await this.repo.history(order.order_id))
  }

  private async visibleOrder(publicId: string, principal: Principal): Promise<TrackedOrder> {
    const order = await this.repo.order(publicId)
    if (order === undefined) throw problems.transactionNotFound()
    // D-11: another customer's transaction is answered exactly like a missing one.
    assertVisible(order.customer_id, principal)
    return order
  }

  private sealedToken(): { token: string; tokenHash: string; sealed: string } {
    const token = newSecret()
    return { token, tokenHash: sha256Hex(token), sealed: encrypt(this.dataKey, token) }
  }

  private unseal(sealed: string | undefined): string | undefined {
    if (sealed === undefined) return undefined
    try {
      return decrypt(this.dataKey, sealed)
    } catch {
      return undefined
    }
  }

  private view(token: string): Static<typeof TrackingLinkResponse> {
    return { tracking_url: `${this.publicUrl}/track/${token}` }
  }
}
