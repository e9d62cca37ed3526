// Reading one environment variable as a typed value, or a ConfigError naming it (D-01).

/** A configuration value that cannot be used; its message is the one line printed at start. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

export type Env = Readonly<Record<string, string | undefined>>

export function fail(variable: string, accepts: string, got: string): never {
  throw new ConfigError(`${variable} must be ${accepts} (got ${JSON.stringify(withoutPassword(got))})`)
}

/**
 * A URL as it may be echoed in the one-line error: the password of `scheme://user:password@host`
 * hidden, up to the last `@` (a password may hold one, unencoded), and the values of query
 * parameters whose names say they carry credentials (`key`, `access_token`, `sig`, `password`, …).
 * DATABASE_URL and SMTP_URL carry credentials, and the error line goes to stderr and from there to
 * log collectors.
 */
export function withoutPassword(value: string): string {
  return value
    .replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#@:]*):.*@/, '$1:***@')
    .replace(/([?&][^=&#]*(?:pass|pwd|secret|token|key|auth|sig|credential)[^=&#]*=)[^&#]*/gi, '$1***')
}

export function text(env: Env, name: string): string | undefined {
  const value = env[name]
  return value === undefined || value.trim() === '' ? undefined : value.trim()
}

/** An integer setting; `shownAs` names it in the error where it has another spelling too. */
export function integer(env: Env, name: string, fallback: number, min: number, max: number, shownAs = name): number {
  const raw = text(env, name)
  if (raw === undefined) return fallback
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    fail(shownAs, `a whole number from ${min} to ${max}`, raw)
  }
  return Number(raw)
}

export function onOff(env: Env, name: string, fallback: boolean): boolean {
  const raw = text(env, name)
  if (raw === undefined) return fallback
  const lower = raw.toLowerCase()
  if (['on', 'true', '1', 'yes'].includes(lower)) return true
  if (['off', 'false', '0', 'no'].includes(lower)) return false
  return fail(name, 'on or off', raw)
}

export function httpUrl(env: Env, name: string, schemes: readonly string[]): string | null {
  const raw = text(env, name)
  if (raw === undefined) return null
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return fail(name, `a URL starting with ${schemes.join(' or ')}`, raw)
  }
  if (!schemes.includes(url.protocol)) fail(name, `a URL starting with ${schemes.join(' or ')}`, raw)
  return raw
}

// An address, or `Display Name <address>`; the domain may be a bare host name (localhost).
const MAILBOX = /^(?:[^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/

export function mailbox(env: Env, name: string, fallback: string): string {
  const raw = text(env, name)
  if (raw === undefined) return fallback
  if (!MAILBOX.test(raw)) fail(name, 'an e-mail address or "Display Name <address>"', raw)
  return raw
}
