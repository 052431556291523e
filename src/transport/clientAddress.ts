// Who a connection's client is, for the limits kept per client (connections, unread answers, heavy
// answers being built, the faucet's rate limit): its source address. An IPv4 address mapped into
// IPv6 (::ffff:1.2.3.4, as a dual-stack listener reports it) is that IPv4 address. An IPv6 address
// stands for its /64: that block is what one subscriber is usually given, and a host may take any
// address in it, so limits on single IPv6 addresses would limit nothing. Behind a reverse proxy
// every client has the proxy's address (docs/security.md).
import { isIPv4, isIPv6 } from 'node:net';

/** The key of the client at `ip` (a socket's remoteAddress; undefined once the socket is gone). */
export function clientKey(ip: string | undefined): string {
  if (ip === undefined) return 'unknown';
  const address = ip.replace(/%.*$/, ''); // zone index
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped && isIPv4(mapped[1])) return mapped[1];
  if (!isIPv6(address)) return address;
  return `${ipv6Groups(address).slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address. */
function ipv6Groups(address: string): number[] {
  const parse = (part: string): number[] => {
    if (part === '') return [];
    const groups: number[] = [];
    for (const piece of part.split(':')) {
      if (piece.includes('.')) { // an embedded IPv4 address: the last two groups
        const [a, b, c, d] = piece.split('.').map(Number);
        groups.push((a << 8) | b, (c << 8) | d);
      } else groups.push(parseInt(piece, 16));
    }
    return groups;
  };
  const [head, tail] = address.split('::') as [string, string | undefined];
  if (tail === undefined) return parse(head);
  const h = parse(head), t = parse(tail);
  return [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
}
