import net from 'node:net'
import type { Config } from './config.js'
import { type Env, fail, text } from './config.values.js'

// The network settings: where to listen, which proxies to trust, connections per client (D-01).

// The named ranges proxy-addr (Fastify's trustProxy) knows.
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal']

/**
 * An address, a CIDR range or a named range, as proxy-addr accepts it. Checked here so a value such
 * as `abc` is refused naming TRUST_PROXY (D-01), not with Fastify's "invalid IP address: abc".
 */
function isProxyEntry(entry: string): boolean {
  if (PROXY_RANGE_NAMES.includes(entry)) return true
  const [address = '', prefix, extra] = entry.split('/')
  const family = net.isIP(address)
  if (family === 0 || extra !== undefined) return false
  if (prefix === undefined) return true
  if (/^\d{1,3}$/.test(prefix)) return Number(prefix) <= (family === 4 ? 32 : 128)
  return family === 4 && net.isIPv4(prefix) // a netmask such as 255.255.0.0
}

export function parseTrustProxy(env: Env): Config['trustProxy'] {
  const raw = text(env, 'TRUST_PROXY')
  if (raw === undefined) return false
  const lower = raw.toLowerCase()
  if (['off', 'false', '0', 'no'].includes(lower)) return false
  if (['on', 'true', 'yes'].includes(lower)) return true
  if (/^\d{1,2}$/.test(raw)) return Number(raw)
  const entries = raw.split(',').map((entry) => entry.trim())
  if (entries.every(isProxyEntry)) return entries.join(',')
  return fail('TRUST_PROXY', 'off, on, a hop count, or a comma-separated list of addresses or CIDR ranges', raw)
}

const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/

/** HOST: an address or a host name to listen on, checked here so a bad one is named (D-01), not failed in listen(). */
export function parseHost(env: Env): string {
  const raw = text(env, 'HOST') ?? '127.0.0.1'
  if (net.isIP(raw) === 0 && !HOST_NAME.test(raw)) fail('HOST', 'an IP address or a host name such as 0.0.0.0 or localhost', raw)
  return raw
}

/**
 * HTTP_MAX_CONNECTIONS_PER_ADDRESS: at most HTTP_MAX_CONNECTIONS. Behind a proxy (TRUST_PROXY) every
 * connection comes from the proxy, so by default it may hold them all.
 */
export function connectionsPerAddress(env: Env, max: number, trustProxy: Config['trustProxy']): number {
  const raw = text(env, 'HTTP_MAX_CONNECTIONS_PER_ADDRESS')
  if (raw === undefined) return trustProxy === false ? Math.max(1, Math.floor(max / 4)) : max
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    fail('HTTP_MAX_CONNECTIONS_PER_ADDRESS', `a whole number from 1 to HTTP_MAX_CONNECTIONS (${max})`, raw)
  }
  return Number(raw)
}
