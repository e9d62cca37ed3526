import net from 'node:net'

/**
 * The client a per-address limit counts (D-14): an IPv4 address as it is; an IPv6 address by its
 * /64 prefix, as `2001:db8:0:1::/64`, since one household or host holds a whole /64; an IPv4-mapped
 * IPv6 address (`::ffff:192.0.2.1`, how a dual-stack socket reports an IPv4 client) as its IPv4
 * address. Anything else (no address, not an IP) is counted as it is.
 */
export function clientAddressKey(ip: string | undefined): string {
  if (ip === undefined) return ''
  if (!ip.includes(':')) return ip
  const groups = ipv6Groups(ip)
  if (groups === undefined) return ip
  if (groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0 && groups[5] === 0xffff) {
    return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`
}

/** The eight 16-bit groups of a valid IPv6 address (its zone, `%eth0`, ignored); undefined if it is not one. */
function ipv6Groups(ip: string): number[] | undefined {
  const zone = ip.indexOf('%')
  const bare = zone === -1 ? ip : ip.slice(0, zone)
  if (!net.isIPv6(bare)) return undefined
  const parse = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [Number.parseInt(group, 16)]
          const [a, b, c, d] = group.split('.').map(Number) as [number, number, number, number]
          return [(a << 8) | b, (c << 8) | d]
        })
  const gap = bare.indexOf('::')
  if (gap === -1) return parse(bare)
  const head = parse(bare.slice(0, gap))
  const tail = parse(bare.slice(gap + 2))
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail]
}
