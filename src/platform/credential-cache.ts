import { hash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Clock } from '../common/clock.js'

interface Entry {
  storedHash: string
  digest: Buffer
  expiresAt: number
}

const TTL_MS = 60_000
// In the last 10 s of an entry's life, a request still passes and re-verifies in the background,
// so a busy credential never expires under load and never makes every connection hash at once.
const REFRESH_MS = 10_000

/** What the cache knows of a password: verified, verified but due for a re-check, or nothing. */
export type CacheState = 'valid' | 'refresh' | 'miss'

/**
 * Customer passwords verified in the last 60 s (D-13), so Basic credentials do not cost a slow hash
 * on every request. Entries are keyed by customer and hold the stored hash they were verified
 * against: a password change (a new stored hash, in any process) invalidates them at once.
 * The password itself is kept only as a keyed digest under a key that never leaves this process.
 */
export class VerifiedCredentialCache {
  // A random key of this process, as text: each password is kept as SHA-256(key ‖ password).
  // With a secret fixed-length key in front and digests that never leave the process, that is as
  // good a fingerprint as an HMAC here, at a third of its cost on every request (one-shot hash).
  private readonly key = randomBytes(32).toString('hex')
  private readonly entries = new Map<string, Entry>()

  constructor(
    private readonly clock: Clock,
    private readonly maxEntries = 50_000
  ) {}

  /** Whether this password was verified against this stored hash less than 60 s ago. */
  check(customerId: string, storedHash: string, password: string): CacheState {
    const entry = this.entries.get(customerId)
    if (entry === undefined) return 'miss'
    const now = this.clock.now()
    if (entry.expiresAt <= now || entry.storedHash !== storedHash) {
      this.entries.delete(customerId)
      return 'miss'
    }
    if (!timingSafeEqual(entry.digest, this.digest(password))) return 'miss'
    return entry.expiresAt - now <= REFRESH_MS ? 'refresh' : 'valid'
  }

  /** True when this password was verified against this stored hash less than 60 s ago. */
  has(customerId: string, storedHash: string, password: string): boolean {
    return this.check(customerId, storedHash, password) !== 'miss'
  }

  /** A process-local fingerprint of a password, to tell concurrent checks of one credential apart. */
  fingerprint(password: string): string {
    return this.digest(password).toString('base64url')
  }

  remember(customerId: string, storedHash: string, password: string): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value
      if (oldest !== undefined) this.entries.delete(oldest)
    }
    this.entries.delete(customerId)
    this.entries.set(customerId, {
      storedHash,
      digest: this.digest(password),
      expiresAt: this.clock.now() + TTL_MS
    })
  }

  private digest(password: string): Buffer {
    return hash('sha256', this.key + password, 'buffer')
  }

  /** Forgets a customer at once (their password changed in this process). */
  forget(customerId: string): void {
    this.entries.delete(customerId)
  }
}
