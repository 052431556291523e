// Who may call the methods that change state outside the protocol (the lumen_* developer methods).
// The reference's methods stay open to every origin, as the reference's are (dApps and Stellar Lab call
// them from their own pages); a privileged method answers only:
//   - a caller that sent no Origin: a CLI, an SDK in Node, curl (a browser always sends one on a
//     cross-origin request, and on any POST);
//   - or an Origin on the allow-list: loopback origins (a dApp's dev server on localhost), the node's
//     own origin (pages it serves), and --dev-allow-origin;
// and, whatever the Origin, only a request whose Host is one the node answers to: an IP address, a
// loopback name, the --endpoint host or --dev-allow-host. A DNS-rebinding page reaches the node with
// its own name in Host (and as a same-origin request, with no CORS to stop it), so the Host check is
// what stops it; an IP address in Host cannot come from a rebinding, since no name was resolved.
import { isIP } from 'node:net';

/** The request headers the policy reads (node's IncomingHttpHeaders fits). */
export interface CallerHeaders {
  origin?: string;
  host?: string;
}

export interface CallerPolicyOptions {
  /** The host the node was told to listen on (--endpoint): a name there is one it answers to. */
  endpointHost: string;
  /** Origins (scheme://host[:port]) whose pages may call privileged methods, besides loopback ones. */
  allowOrigins?: readonly string[];
  /** Host names privileged methods are answered for, besides IP addresses and loopback names; "*": any. */
  allowHosts?: readonly string[];
}

/** A name that always means this machine: localhost and its subdomains (RFC 6761). */
export function isLoopbackName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
}

/** A loopback address or name: 127.0.0.0/8, ::1 (also IPv4-mapped), localhost. */
export function isLoopbackHost(host: string): boolean {
  const h = unbracket(host).toLowerCase();
  if (isLoopbackName(h)) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^(0*:)*:?0*1$/.test(h) || /^::ffff:127\./.test(h);
  return false;
}

const unbracket = (host: string): string => (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host);

/** The host name of a Host header value ("name:port", "[v6]:port", "name"), lower case. */
export function hostNameOf(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end < 0 ? h : h.slice(1, end);
  }
  const colon = h.indexOf(':');
  // more than one colon: an unbracketed IPv6 address, which has no port
  if (colon >= 0 && h.indexOf(':', colon + 1) < 0) return h.slice(0, colon);
  return h;
}

/** An origin as browsers send it (scheme://host[:port], default ports dropped), or undefined when it is not one. */
export function normalOrigin(origin: string): string | undefined {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  return url.origin;
}

export class CallerPolicy {
  private readonly endpointHost: string;
  private readonly allowOrigins: ReadonlySet<string>;
  private readonly allowHosts: ReadonlySet<string>;
  private readonly anyHost: boolean;

  constructor(options: CallerPolicyOptions) {
    this.endpointHost = unbracket(options.endpointHost).toLowerCase();
    const origins = new Set<string>();
    for (const o of options.allowOrigins ?? []) {
      const normal = normalOrigin(o);
      if (normal === undefined) throw new Error(`--dev-allow-origin: ${JSON.stringify(o)} is not an origin (scheme://host[:port], http or https)`);
      origins.add(normal);
    }
    this.allowOrigins = origins;
    this.allowHosts = new Set((options.allowHosts ?? []).map((h) => unbracket(h.trim()).toLowerCase()).filter((h) => h !== ''));
    this.anyHost = this.allowHosts.has('*');
  }

  /** Undefined when the caller may use privileged methods; else why not, as the error's data says it. */
  refusal(headers: CallerHeaders): string | undefined {
    const host = headers.host;
    if (host !== undefined && !this.answersHost(hostNameOf(host))) {
      return `Host ${JSON.stringify(host)} is not a name this node serves developer methods for (IP addresses, loopback names, `
        + 'the --endpoint host, --dev-allow-host): a page that rebinds its own name to this node looks like this';
    }
    const origin = headers.origin;
    if (origin === undefined) return undefined;
    const normal = normalOrigin(origin);
    if (normal !== undefined) {
      if (isLoopbackHost(new URL(normal).hostname)) return undefined;
      if (this.allowOrigins.has(normal)) return undefined;
      // the node's own pages (same origin: the Host passed the check above)
      if (host !== undefined && new URL(normal).host === host.trim().toLowerCase()) return undefined;
    }
    return `developer methods answer only requests without an Origin (CLIs, SDKs in Node) or from an allowed origin `
      + `(loopback, the node's own, --dev-allow-origin); not from ${JSON.stringify(origin)}`;
  }

  private answersHost(name: string): boolean {
    if (this.anyHost || isIP(name) !== 0 || isLoopbackName(name)) return true;
    return name === this.endpointHost || this.allowHosts.has(name);
  }
}
