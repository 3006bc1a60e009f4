/**
 * Which Host values the admin listener answers (DNS rebinding). A web page can have its
 * own name resolve to 127.0.0.1 and then read `/metrics` as same-origin; the Host header
 * still carries the page's name, so a name the listener does not know is refused. An IP
 * literal, `localhost` (RFC 6761 §6.3) and names given in `SCOOP_ADMIN_HOSTNAMES` (or as
 * `SCOOP_ADMIN_HOST`) are answered: a page whose origin is an IP address reads nothing
 * cross-origin. webpack-dev-server's `allowedHosts: 'auto'` draws the same line.
 */
import { isIP } from 'node:net';

/** A DNS name as a Host's reg-name may carry it (RFC 3986 §3.2.2, without percent-encoding). */
const NAME = /^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?\.?$/;

export function isHostName(value: string): boolean {
  return NAME.test(value.toLowerCase()) && isIP(value) === 0;
}

/** The host part of a Host header (RFC 9110 §7.2: uri-host [ ":" port ]), lower-cased without a trailing dot; undefined when malformed. */
function hostPart(header: string): string | undefined {
  const value = header.trim().toLowerCase();
  const bracketed = /^\[([0-9a-f:.]+)\](?::\d*)?$/.exec(value);
  if (bracketed) return isIP(bracketed[1]!) === 6 ? bracketed[1] : undefined;
  const plain = /^([^:]+)(?::\d*)?$/.exec(value);
  if (!plain) return undefined;
  return plain[1]!.replace(/\.$/, '');
}

/**
 * A check of Host values for a listener bound to `bindHost` that also answers to `names`.
 * A request without Host (HTTP/1.0) is answered: browsers always send one.
 */
export function adminHostCheck(
  bindHost: string,
  names: readonly string[],
): (host: string | undefined) => boolean {
  const known = new Set(['localhost', ...names.map((n) => n.toLowerCase().replace(/\.$/, ''))]);
  if (isHostName(bindHost)) known.add(bindHost.toLowerCase().replace(/\.$/, ''));
  return (header) => {
    if (header === undefined) return true;
    const host = hostPart(header);
    if (host === undefined) return false;
    return isIP(host) !== 0 || known.has(host) || host.endsWith('.localhost');
  };
}
