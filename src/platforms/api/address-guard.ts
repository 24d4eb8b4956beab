// Which addresses platform calls and media downloads may connect to: public ones, plus what the
// operator allows (PLATFORM_FETCH_ALLOW). Checked on the address actually connected to (a custom
// DNS lookup in the request), so a name that resolves differently later cannot slip through.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Private, loopback, link-local, unique-local, metadata, unspecified, multicast and reserved ranges,
 * and the IPv6 ranges that tunnel to IPv4 (NAT64, 6to4, Teredo).
 */
const REFUSED_V4 = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.88.99.0', 24], // 6to4 relay anycast: reaches whatever the relay forwards to
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const;
const REFUSED_V6 = [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  // IPv6 that carries an IPv4 address to a gateway: local NAT64, 6to4, Teredo. Each can reach a
  // private IPv4 address the v4 list refuses (2002:7f00:1:: is 127.0.0.1 through 6to4).
  ['64:ff9b:1::', 48],
  ['2002::', 16],
  ['2001::', 32],
  ['2001:db8::', 32],
] as const;

export interface AddressGuard {
  /** Null when the address may be connected to; else why not. */
  refusal(address: string): string | null;
  /** A `lookup` for http.request: resolves, then refuses the whole name if any address is refused. */
  lookup: typeof dnsLookup;
}

function blockList(
  entries: readonly (readonly [string, number])[],
  family: 'ipv4' | 'ipv6',
  list = new BlockList(),
) {
  for (const [address, prefix] of entries) list.addSubnet(address, prefix, family);
  return list;
}

/** `allow`: addresses or CIDRs the operator lets through although they are in a refused range. */
export function createAddressGuard(allow: readonly string[]): AddressGuard {
  const refused = blockList(REFUSED_V6, 'ipv6', blockList(REFUSED_V4, 'ipv4'));
  const allowed = new BlockList();
  for (const entry of allow) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) allowed.addAddress(address, family);
    else allowed.addSubnet(address, Number(prefix), family);
  }

  const refusal = (raw: string): string | null => {
    const family = isIP(raw);
    if (family === 0) return `not an IP address: ${raw}`;
    // An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is the IPv4 address it carries.
    const mapped = family === 6 ? /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(raw)?.[1] : undefined;
    const address = mapped ?? raw;
    const kind = mapped || family === 4 ? 'ipv4' : 'ipv6';
    if (allowed.check(address, kind)) return null;
    return refused.check(address, kind) ? `address ${address} is private or reserved` : null;
  };

  const lookup = ((hostname: string, options: unknown, callback: unknown) => {
    const cb = (typeof options === 'function' ? options : callback) as (
      error: NodeJS.ErrnoException | null,
      address: string | LookupAddress[],
      family?: number,
    ) => void;
    const opts = (typeof options === 'object' && options !== null ? options : {}) as {
      all?: boolean;
      family?: number;
    };
    dnsLookup(hostname, { all: true, family: opts.family ?? 0 }, (error, addresses) => {
      if (error) return cb(error, []);
      const bad = addresses.map((a) => refusal(a.address)).find((r) => r !== null);
      if (bad || addresses.length === 0) {
        const refusedError = Object.assign(new Error(`${hostname}: ${bad ?? 'no address'}`), {
          code: 'EADDRREFUSEDBYPOLICY',
        });
        return cb(refusedError, []);
      }
      if (opts.all) return cb(null, addresses);
      const first = addresses[0]!;
      cb(null, first.address, first.family);
    });
  }) as typeof dnsLookup;

  return { refusal, lookup };
}
