import { createCipheriv, createDecipheriv, createHmac, hash, randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto'

/** Hex SHA-256 of a text; how API key secrets and reset tokens are stored (D-10, D-36). */
export function sha256Hex(value: string): string {
  // One-shot hash: it runs on every request with an API key.
  return hash('sha256', value, 'hex')
}

/** Compares two texts in time that depends only on their length, not on where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8')
  const right = Buffer.from(b, 'utf8')
  if (left.length !== right.length) {
    // Still spend a comparison so a length mismatch is not much faster than a content mismatch.
    timingSafeEqual(left, left)
    return false
  }
  return timingSafeEqual(left, right)
}

/** HMAC-SHA256 under a key; used to fingerprint secrets kept briefly in memory. */
export function hmac(key: Buffer, value: string): Buffer {
  return createHmac('sha256', key).update(value, 'utf8').digest()
}

// scrypt with N=2^15, r=8, p=1: about 32 MiB and tens of milliseconds per hash, run on libuv's
// thread pool so the event loop never waits for it (D-10, performance issue).
const SCRYPT = { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const satisfies ScryptOptions
const KEY_LENGTH = 32

/** Hashes run at once (each holds 32 MiB); the rest wait their turn, so memory stays bounded (D-13). */
export const MAX_CONCURRENT_PASSWORD_HASHES = 2

/** Password hashes running and waiting now (tests, /metrics). */
export const passwordHashing = { running: 0, waiting: 0 }
const turns: Array<() => void> = []

async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  if (passwordHashing.running >= MAX_CONCURRENT_PASSWORD_HASHES) {
    passwordHashing.waiting++
    // The slot is handed over by the hash that finishes, so `running` never passes the bound.
    await new Promise<void>((resolve) => turns.push(resolve))
    passwordHashing.waiting--
  } else {
    passwordHashing.running++
  }
  try {
    return await work()
  } finally {
    const next = turns.shift()
    if (next === undefined) passwordHashing.running--
    else next()
  }
}

function scryptAsync(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return inTurn(
    () =>
      new Promise<Buffer>((resolve, reject) => {
        scrypt(password, salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)))
      })
  )
}

/**
 * Passwords are hashed and compared in Unicode NFKC (NIST SP 800-63B, 5.1.1.2): the same visible
 * password typed where "ë" is one code point and where it is "e" and a combining mark, or in
 * full-width forms, is the same password.
 */
function normalizedPassword(password: string): string {
  return password.normalize('NFKC')
}

/** A slow salted hash of a password, self-describing: `scrypt$N$r$p$salt$hash`. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await scryptAsync(normalizedPassword(password), salt, SCRYPT)
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), key.toString('base64url')].join('$')
}

/**
 * Checks a password against a stored hash; false for a hash it cannot read. Hashes made before
 * passwords were normalised hold the text as it was sent: a password that NFKC changes is checked
 * as sent too when its normal form does not match (a second hash, for those passwords only, and as
 * much for an unknown e-mail's dummy hash, so D-35's equal timing holds).
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$')
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false
  const [N, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])]
  const salt = Buffer.from(parts[4]!, 'base64url')
  const expected = Buffer.from(parts[5]!, 'base64url')
  const matches = async (text: string) => {
    const actual = await scryptAsync(text, salt, { N, r, p, maxmem: SCRYPT.maxmem })
    return actual.length === expected.length && timingSafeEqual(actual, expected)
  }
  const normalized = normalizedPassword(password)
  if (await matches(normalized)) return true
  return normalized !== password && (await matches(password))
}

/** A hash that verifies nothing, spent on unknown e-mails so they cost what a wrong password costs (D-35). */
export const DUMMY_PASSWORD_HASH = [
  'scrypt',
  SCRYPT.N,
  SCRYPT.r,
  SCRYPT.p,
  randomBytes(16).toString('base64url'),
  randomBytes(KEY_LENGTH).toString('base64url')
].join('$')

/** AES-256-GCM encryption of a text; output is `v1.iv.tag.ciphertext`, base64url parts (D-34). */
export function encrypt(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.')
}

/** Reverses `encrypt`; throws if the key is wrong or the text was altered. */
export function decrypt(key: Buffer, sealed: string): string {
  const [version, iv, tag, body] = sealed.split('.')
  if (version !== 'v1' || iv === undefined || tag === undefined || body === undefined) {
    throw new Error('unreadable ciphertext')
  }
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
  decipher.setAuthTag(Buffer.from(tag, 'base64url'))
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8')
}
