/** The start-up line of `trawl serve`: where it really listens, and who can reach it. */
import type { AddressInfo } from 'node:net';
import { isIP } from 'node:net';

const wildcard = new Set(['0.0.0.0', '::']);

/** Whether an address is reachable only from this machine. */
export function isLoopbackAddress(address: string): boolean {
  return address === '::1' || address === 'localhost' || address.startsWith('127.');
}

/**
 * One line naming the URL the socket is bound to, whether it is every address of the machine,
 * and, for a keyless server, that anyone who reaches it may use it.
 */
export function listeningLine(bound: AddressInfo | string | null, keyless: boolean): string {
  if (bound === null || typeof bound === 'string')
    return `Trawl /v2 server on ${bound ?? 'an unknown address'}`;
  const host = isIP(bound.address) === 6 ? `[${bound.address}]` : bound.address;
  const url = `http://${host}:${bound.port}`;
  const everywhere = wildcard.has(bound.address);
  const loopback = isLoopbackAddress(bound.address);
  const where = everywhere
    ? ` (every ${bound.address === '::' ? '' : 'IPv4 '}address of this machine; from here: http://127.0.0.1:${bound.port})`
    : '';
  const access = !keyless
    ? 'API keys required'
    : loopback
      ? 'keyless: no API key configured, reachable from this machine only'
      : 'keyless: no API key configured, reachable from other machines, and anyone who reaches it can use it (--allow-keyless-remote)';
  return `Trawl /v2 server on ${url}${where}; ${access}`;
}
