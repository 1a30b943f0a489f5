/**
 * The one private-address guard for every outbound
 * connection the engine makes on a stranger's behalf: the HTTP engine and each redirect hop, the
 * map/sitemap/robots fetches, webhooks and every request of the browser engine.
 *
 * Two halves:
 * - **Normalisation.** An address is reduced to the IPv4 or IPv6 it really reaches before any
 *   range is looked at: IPv4 written in decimal, octal, hex or short form (`2130706433`,
 *   `0x7f.1`, `017700000001`, `127.1`), and IPv6 that embeds an IPv4 (mapped `::ffff:7f00:1`,
 *   compatible `::127.0.0.1`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`, Teredo `2001::/32` whose
 *   client address is stored inverted). A guard that compares text misses these: the URL parser
 *   turns `[::ffff:127.0.0.1]` into `[::ffff:7f00:1]`, which the earlier copies let through.
 * - **Resolve once.** A host name is resolved once, by the lookup the socket itself calls, and
 *   the connection goes to the address that was checked: no second lookup for a rebinding DNS
 *   server to answer differently.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { BlockedUrlError } from '../errors.ts';

/** Ranges no request on a stranger's behalf may reach, with why (for the refusal message). */
const ipv4Ranges: ReadonlyArray<readonly [string, number, string]> = [
  ['0.0.0.0', 8, '"this network"'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  // 169.254.169.254 (the cloud metadata service of AWS, GCP, Azure) lies here.
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  // 192.0.0.192 is Oracle Cloud's metadata service.
  ['192.0.0.0', 24, 'IETF protocol assignment'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  // Reserved, and 255.255.255.255 (broadcast) with it.
  ['240.0.0.0', 4, 'reserved'],
];

const ipv6Ranges: ReadonlyArray<readonly [string, number, string]> = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['100::', 64, 'discard-only'],
  ['64:ff9b:1::', 48, 'local NAT64'],
  ['2001:db8::', 32, 'documentation'],
  ['2001:10::', 28, 'ORCHID'],
  // fd00:ec2::254 (AWS's IPv6 metadata service) lies here.
  ['fc00::', 7, 'unique-local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

function blockListOf(
  ranges: ReadonlyArray<readonly [string, number, string]>,
  family: 'ipv4' | 'ipv6',
): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, family);
  return list;
}

// Built once: every connection of the engine asks.
const blockedIpv4 = blockListOf(ipv4Ranges, 'ipv4');
const blockedIpv6 = blockListOf(ipv6Ranges, 'ipv6');

/** How a guard may be adjusted: a lookup to use instead of DNS, and exempt addresses. */
export interface AddressGuardOptions {
  /**
   * Resolves host names instead of `dns.lookup` (fixed addresses for tests, a custom resolver).
   * Its answers are checked like DNS answers.
   */
  lookup?: LookupFunction | undefined;
  /**
   * Addresses (IP literals, any form) that are reachable although their range is refused: a
   * narrow exception for one known internal service, or a test's site on loopback.
   */
  allowedAddresses?: readonly string[] | undefined;
}

/** An address with what it reaches: the IPv4 inside an IPv6 form, canonical text. */
export interface NormalisedAddress {
  family: 4 | 6;
  /** Dotted quad, or eight lower-case hex groups. */
  address: string;
}

/**
 * Parses IPv4 the way `inet_aton` (and so `getaddrinfo` and the URL parser) does: one to four
 * parts, each decimal, octal (leading 0) or hex (0x), the last filling the remaining bytes.
 */
export function parseIpv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length > 4 || parts.some((part) => part === '')) return undefined;
  const values: number[] = [];
  for (const part of parts) {
    let value: number;
    if (/^0x[0-9a-f]*$/i.test(part)) value = part.length === 2 ? 0 : parseInt(part.slice(2), 16);
    else if (/^0[0-7]+$/.test(part)) value = parseInt(part, 8);
    else if (/^(?:0|[1-9][0-9]*)$/.test(part)) value = Number(part);
    else return undefined;
    values.push(value);
  }
  const last = values.pop() ?? 0;
  if (values.some((value) => value > 255) || last >= 256 ** (4 - values.length)) return undefined;
  return values.reduce((sum, value, index) => sum + value * 256 ** (3 - index), 0) + last;
}

/** Parses an IPv6 literal (brackets, zone index and a dotted IPv4 tail allowed) into 16 bytes. */
export function parseIpv6(text: string): Uint8Array | undefined {
  let bare = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIP(bare) !== 6) return undefined;
  // A dotted IPv4 tail stands for the last two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(bare)?.[1];
  if (dotted) {
    const v4 = parseIpv4(dotted) ?? 0;
    const high = Math.floor(v4 / 65536).toString(16);
    bare = `${bare.slice(0, -dotted.length)}${high}:${(v4 % 65536).toString(16)}`;
  }
  const [left = '', right, extra] = bare.split('::');
  if (extra !== undefined) return undefined;
  const toWords = (part: string) =>
    part === '' ? [] : part.split(':').map((g) => parseInt(g, 16));
  const leftWords = toWords(left);
  const rightWords = right === undefined ? [] : toWords(right);
  const zeros = 8 - leftWords.length - rightWords.length;
  if (zeros < 0 || (right === undefined && zeros !== 0)) return undefined;
  const words = [...leftWords, ...new Array<number>(zeros).fill(0), ...rightWords];
  const bytes = new Uint8Array(16);
  words.forEach((word, index) => {
    bytes[index * 2] = word >> 8;
    bytes[index * 2 + 1] = word & 0xff;
  });
  return bytes;
}

const ipv4Text = (value: number) =>
  [value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff].join('.');
const ipv4At = (bytes: Uint8Array, offset: number, invert = 0) =>
  ipv4Text(
    (((bytes[offset] ?? 0) ^ invert) * 2 ** 24 +
      (((bytes[offset + 1] ?? 0) ^ invert) << 16) +
      (((bytes[offset + 2] ?? 0) ^ invert) << 8) +
      ((bytes[offset + 3] ?? 0) ^ invert)) >>>
      0,
  );
const ipv6Text = (bytes: Uint8Array) =>
  Array.from({ length: 8 }, (_, i) =>
    (((bytes[i * 2] ?? 0) << 8) | (bytes[i * 2 + 1] ?? 0)).toString(16),
  ).join(':');

/**
 * Every address `text` stands for: itself, and the IPv4 addresses an IPv6 form carries (a Teredo
 * address carries two: its server and its client). `undefined` when `text` is no IP literal.
 */
export function normaliseAddress(text: string): NormalisedAddress[] | undefined {
  const bare = text.replace(/^\[|\]$/g, '');
  const v4 = bare.includes(':') ? undefined : parseIpv4(bare);
  if (v4 !== undefined) return [{ family: 4, address: ipv4Text(v4) }];
  const bytes = parseIpv6(bare);
  if (!bytes) return undefined;
  const own: NormalisedAddress = { family: 6, address: ipv6Text(bytes) };
  const zeroUntil = (end: number) => bytes.subarray(0, end).every((byte) => byte === 0);
  const word = (index: number) => ((bytes[index * 2] ?? 0) << 8) | (bytes[index * 2 + 1] ?? 0);
  const embedded: string[] = [];
  // ::ffff:a.b.c.d (mapped) and ::ffff:0:a.b.c.d (translated, SIIT).
  if (zeroUntil(10) && word(5) === 0xffff) embedded.push(ipv4At(bytes, 12));
  else if (zeroUntil(8) && word(4) === 0xffff && word(5) === 0) embedded.push(ipv4At(bytes, 12));
  // ::a.b.c.d (compatible, deprecated); :: and ::1 stay IPv6 (unspecified, loopback).
  else if (zeroUntil(12) && !(zeroUntil(15) && (bytes[15] ?? 0) <= 1)) {
    embedded.push(ipv4At(bytes, 12));
  }
  // 64:ff9b::/96 (NAT64, RFC 6052).
  if (word(0) === 0x64 && word(1) === 0xff9b && bytes.subarray(4, 12).every((b) => b === 0)) {
    embedded.push(ipv4At(bytes, 12));
  }
  // 2002:AABB:CCDD::/48 (6to4).
  if (word(0) === 0x2002) embedded.push(ipv4At(bytes, 2));
  // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC (Teredo): server, and the client stored inverted.
  if (word(0) === 0x2001 && word(1) === 0) {
    embedded.push(ipv4At(bytes, 4), ipv4At(bytes, 12, 0xff));
  }
  return [own, ...embedded.map((address) => ({ family: 4 as const, address }))];
}

/**
 * Why `address` (an IP literal in any form) may not be reached, or `undefined` when it may (or
 * when it is no IP literal at all).
 */
export function blockedAddressReason(
  address: string,
  options: AddressGuardOptions = {},
): string | undefined {
  const forms = normaliseAddress(address);
  if (!forms) return undefined;
  const exempt = exemptAddresses(options.allowedAddresses);
  for (const form of forms) {
    if (exempt.has(form.address)) continue;
    const family = form.family === 4 ? 'ipv4' : 'ipv6';
    if (!(form.family === 4 ? blockedIpv4 : blockedIpv6).check(form.address, family)) continue;
    // The table is short, and only a refusal asks which range matched (for its message).
    const range = (form.family === 4 ? ipv4Ranges : ipv6Ranges).find(([network, prefix]) =>
      blockListOf([[network, prefix, '']], family).check(form.address, family),
    );
    const label = range ? `${range[2]} range ${range[0]}/${range[1]}` : 'a refused range';
    // Name what the address really is when it was written otherwise (0x7f.1, ::ffff:7f00:1).
    const asWritten = form === forms[0] && (form.family === 6 || form.address === address);
    const shown = asWritten ? address : `${address}, that is ${form.address},`;
    return `${shown} is in the ${label}`;
  }
  return undefined;
}

/** Whether an IP literal in any form is one the guard refuses. */
export function isBlockedAddress(address: string, options: AddressGuardOptions = {}): boolean {
  return blockedAddressReason(address, options) !== undefined;
}

// Options objects are long-lived (one per fetcher): normalise each exemption list once.
const exemptCache = new WeakMap<readonly string[], ReadonlySet<string>>();
function exemptAddresses(allowed: readonly string[] | undefined): ReadonlySet<string> {
  if (!allowed || allowed.length === 0) return new Set();
  let set = exemptCache.get(allowed);
  if (!set) {
    set = new Set(allowed.map((entry) => normaliseAddress(entry)?.at(-1)?.address ?? entry));
    exemptCache.set(allowed, set);
  }
  return set;
}

/**
 * Why a URL's host may not be reached without resolving it: an IP literal in a refused range,
 * or a name that means this machine (`localhost`, `*.localhost`). Names are left to the lookup.
 */
export function blockedHostReason(
  hostname: string,
  options: AddressGuardOptions = {},
): string | undefined {
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) {
    return options.allowedAddresses?.length && !isBlockedAddress('127.0.0.1', options)
      ? undefined
      : `${hostname} is this machine`;
  }
  return blockedAddressReason(host, options);
}

/**
 * Refuses a URL whose host is a refused IP literal or a loopback name.
 *
 * @throws URL_BLOCKED
 */
export function assertPublicUrl(url: URL, options: AddressGuardOptions = {}): void {
  const reason = blockedHostReason(url.hostname, options);
  if (reason) {
    throw new BlockedUrlError(
      `${url.href} points to a private or reserved address (${reason}), which may not be fetched while allowPrivateAddresses is off`,
    );
  }
}

/**
 * A `lookup` for sockets (`net.connect`, undici's `connect.lookup`, `http.request`) that resolves
 * once and refuses when any answer is a refused address, so that the address checked is the
 * address connected to. Sockets do not call `lookup` for IP literals: pair it with
 * {@link assertPublicUrl} on the target.
 */
export function guardedLookup(options: AddressGuardOptions = {}): LookupFunction {
  const resolve = options.lookup ?? dnsLookup;
  return (hostname, lookupOptions, callback) => {
    const early = blockedHostReason(hostname, options);
    if (early) return callback(refusal(hostname, early), '', 0);
    resolve(hostname, { ...lookupOptions, all: true }, (error, answer) => {
      if (error) return callback(error, '', 0);
      const list: LookupAddress[] =
        typeof answer === 'string' ? [{ address: answer, family: isIP(answer) }] : answer;
      for (const entry of list) {
        const reason = blockedAddressReason(entry.address, options);
        if (reason) return callback(refusal(hostname, reason), '', 0);
      }
      const first = list[0];
      if (!first) {
        const none = Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' });
        return callback(none, '', 0);
      }
      if (lookupOptions.all) return callback(null, list);
      return callback(null, first.address, first.family);
    });
  };
}

function refusal(hostname: string, reason: string): BlockedUrlError {
  return new BlockedUrlError(
    `${hostname} resolves to a private or reserved address (${reason}), which may not be fetched while allowPrivateAddresses is off`,
  );
}

/**
 * Resolves `hostname` once through the guard: its addresses when all are public.
 *
 * @throws URL_BLOCKED when one is not; the lookup's own error (ENOTFOUND …) when it fails
 */
export function resolvePublic(
  hostname: string,
  options: AddressGuardOptions = {},
): Promise<LookupAddress[]> {
  const host = hostname.replace(/^\[|\]$/g, '');
  const reason = blockedHostReason(host, options);
  if (reason) return Promise.reject(refusal(hostname, reason));
  if (isIP(host)) return Promise.resolve([{ address: host, family: isIP(host) }]);
  return new Promise((resolve, reject) => {
    guardedLookup(options)(host, { all: true }, (error, answer) => {
      if (error) reject(error);
      else resolve(answer as LookupAddress[]);
    });
  });
}
