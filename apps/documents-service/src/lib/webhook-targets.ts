import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns'
import type { LookupFunction } from 'node:net'
import ipaddr from 'ipaddr.js'

/**
 * Whether `address` is a public unicast address. ipaddr.js names every special range (private, loopback,
 * link-local, CGNAT, multicast, unspecified, broadcast, reserved, unique-local, 6to4/Teredo/NAT64 that embed an
 * IPv4 address, ...) and calls the rest `unicast`; an IPv4-mapped IPv6 address is judged as its IPv4 address.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false
  return ipaddr.process(address).range() === 'unicast'
}

/** The host of a URL as an address when it is written as one (`[::1]` → `::1`); undefined for a name. */
function literalAddress(url: URL): string | undefined {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  return ipaddr.isValid(host) ? host : undefined
}

/**
 * Why `text` cannot be a webhook target, or undefined when it can: http(s) only, no credentials in it (the URL is
 * listed to administrators), and, unless private targets are allowed, no non-public address written in it. A
 * name is judged when a delivery connects (`publicLookup`), since what it resolves to can change.
 */
export function targetRefusal(text: string, allowPrivate: boolean): string | undefined {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return 'url: not a valid URL'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'url: only http and https are allowed'
  if (url.username !== '' || url.password !== '') return 'url: must not hold credentials'
  const address = literalAddress(url)
  if (!allowPrivate && address !== undefined && !isPublicAddress(address)) {
    return `url: ${address} is not a public address`
  }
  return undefined
}

/** The error a connection refused by `publicLookup` fails with. */
class PrivateTargetError extends Error {
  readonly code = 'EWEBHOOKTARGET'
  constructor(hostname: string) {
    super(`${hostname} resolves to no public address`)
  }
}

type Resolve = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void

/**
 * A `lookup` for sockets that drops non-public addresses from what a name resolves to: the address connected to
 * is the one checked, so a name that resolves (or rebinds) to a private address between registration and delivery
 * is still refused. `resolve` is `dns.lookup` but in tests.
 */
export function publicLookup(resolve: Resolve = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { family: options.family ?? 0, hints: options.hints, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0)
      const allowed = addresses.filter(({ address }) => isPublicAddress(address))
      const first = allowed[0]
      if (!first) return callback(new PrivateTargetError(hostname), '', 0)
      if (options.all) return (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, allowed)
      callback(null, first.address, first.family)
    })
  }
}
