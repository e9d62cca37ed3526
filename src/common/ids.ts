import { randomBytes, randomFillSync, randomInt } from 'node:crypto'

// Lower-case Crockford base32: no i, l, o, u, so ids read back unambiguously.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'

function base32(bytes: Buffer): string {
  let out = ''
  let buffer = 0
  let bits = 0
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte
    bits += 8
    while (bits >= 5) {
      out += ALPHABET[(buffer >>> (bits - 5)) & 31]
      bits -= 5
    }
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31]
  return out
}

// Random bytes come from a 4 KiB block of the CSPRNG, as crypto.randomUUID does: a call into OpenSSL
// costs the same whatever its size. Each byte is handed out once.
const POOL_SIZE = 4096
let pool = Buffer.alloc(0)
let poolOffset = 0

/** `size` fresh random bytes; the caller may write into them (they are never handed out again). */
function randomChunk(size: number): Buffer {
  if (poolOffset + size > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafeSlow(POOL_SIZE))
    poolOffset = 0
  }
  const chunk = pool.subarray(poolOffset, poolOffset + size)
  poolOffset += size
  return chunk
}

export type IdPrefix = 'cus' | 'svc' | 'trx' | 'pay' | 'key' | 'trk' | 'stf'

/**
 * A new opaque identifier (D-30): a type prefix and 120 random bits, so ids are unguessable,
 * carry no order, and can never equal a literal path segment such as `create` or `signin`.
 */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${base32(randomChunk(15))}`
}

/**
 * A unique id that sorts by creation time: the milliseconds since 1970 in 6 bytes, then 72 random
 * bits, in the same base32 (its alphabet is in ASCII order, so the text sorts as the bytes do).
 * For our own records that need a unique public id but no secrecy about when they were made:
 * successive ids land at the end of their unique index instead of on a random page of it, which
 * keeps the pages a commit writes few.
 */
export function newTimeOrderedId(prefix: string, nowMs: number): string {
  const bytes = randomChunk(15)
  bytes.writeUIntBE(Math.max(0, Math.min(nowMs, 2 ** 48 - 1)), 0, 6)
  return `${prefix}_${base32(bytes)}`
}

/** An API key id: short enough to type, random enough never to collide in practice. */
export function newKeyId(): string {
  return `key_${base32(randomChunk(10))}`
}

/** A secret of 32 random bytes, base64url (D-10 API keys, D-36 reset tokens). */
export function newSecret(): string {
  return randomBytes(32).toString('base64url')
}

/** A random 8-digit transaction code (D-50); uniqueness is enforced by the database. */
export function newTransactionCode(): number {
  return randomInt(10_000_000, 100_000_000)
}
