/**
 * The address guard's table: every way of writing an address that reaches a
 * refused range is refused, and public addresses written the same ways pass. Then the lookup: a
 * name is resolved once, and any refused answer refuses the name.
 */
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  assertPublicUrl,
  blockedAddressReason,
  blockedHostReason,
  guardedLookup,
  isBlockedAddress,
  resolvePublic,
} from '../../src/internal/address-guard.js';

/** [written form, what it reaches, why it is refused]. */
const refused: ReadonlyArray<readonly [string, string, string]> = [
  // IPv4 in every inet_aton form.
  ['127.0.0.1', '127.0.0.1', 'loopback'],
  ['2130706433', '127.0.0.1', 'decimal loopback'],
  ['0x7f.1', '127.0.0.1', 'hex, short loopback'],
  ['0x7f000001', '127.0.0.1', 'hex loopback'],
  ['017700000001', '127.0.0.1', 'octal loopback'],
  ['0177.0.0.1', '127.0.0.1', 'octal first part'],
  ['127.1', '127.0.0.1', 'short loopback'],
  ['127.0.1', '127.0.0.1', 'three-part loopback'],
  ['127.255.255.254', '127.255.255.254', 'loopback /8'],
  ['10.0.0.1', '10.0.0.1', 'private 10/8'],
  ['172.16.0.1', '172.16.0.1', 'private 172.16/12'],
  ['172.31.255.255', '172.31.255.255', 'private 172.16/12, upper end'],
  ['192.168.1.1', '192.168.1.1', 'private 192.168/16'],
  ['0xc0a80101', '192.168.1.1', 'hex private'],
  ['169.254.0.1', '169.254.0.1', 'link-local'],
  ['169.254.169.254', '169.254.169.254', 'cloud metadata'],
  ['2852039166', '169.254.169.254', 'decimal cloud metadata'],
  ['192.0.0.192', '192.0.0.192', 'Oracle Cloud metadata'],
  ['100.64.0.1', '100.64.0.1', 'carrier-grade NAT'],
  ['100.127.255.255', '100.127.255.255', 'carrier-grade NAT, upper end'],
  ['100.100.100.200', '100.100.100.200', 'Alibaba Cloud metadata (CGNAT)'],
  ['198.18.0.1', '198.18.0.1', 'benchmarking'],
  ['198.19.255.255', '198.19.255.255', 'benchmarking, upper end'],
  ['224.0.0.1', '224.0.0.1', 'multicast'],
  ['239.255.255.250', '239.255.255.250', 'multicast (SSDP)'],
  ['240.0.0.1', '240.0.0.1', 'reserved'],
  ['255.255.255.255', '255.255.255.255', 'broadcast'],
  ['0.0.0.0', '0.0.0.0', 'unspecified'],
  ['0', '0.0.0.0', 'single-part zero'],
  ['0.1.2.3', '0.1.2.3', '"this network" 0/8'],
  ['192.0.2.1', '192.0.2.1', 'documentation'],
  // IPv6 proper.
  ['::1', '::1', 'IPv6 loopback'],
  ['[::1]', '::1', 'IPv6 loopback in brackets'],
  ['0:0:0:0:0:0:0:1', '::1', 'IPv6 loopback, long form'],
  ['::', '::', 'IPv6 unspecified'],
  ['fc00::1', 'fc00::1', 'unique-local fc00::/7'],
  ['fd12:3456::1', 'fd12:3456::1', 'unique-local fd'],
  ['fd00:ec2::254', 'fd00:ec2::254', 'AWS IPv6 metadata'],
  ['fe80::1', 'fe80::1', 'link-local'],
  ['fe80::1%eth0', 'fe80::1', 'link-local with zone'],
  ['febf::1', 'febf::1', 'link-local, upper end'],
  ['fec0::1', 'fec0::1', 'site-local'],
  ['ff02::1', 'ff02::1', 'multicast'],
  ['2001:db8::1', '2001:db8::1', 'documentation'],
  ['64:ff9b:1::a00:1', '64:ff9b:1::a00:1', 'local-use NAT64'],
  // IPv4-mapped: dotted, and the hex form URL parsing produces (a bypass found by the first security pass).
  ['::ffff:127.0.0.1', '127.0.0.1', 'mapped loopback, dotted'],
  ['::ffff:7f00:1', '127.0.0.1', 'mapped loopback, hex (as new URL() writes it)'],
  ['[::ffff:7f00:1]', '127.0.0.1', 'mapped loopback, hex, bracketed'],
  ['0:0:0:0:0:ffff:7f00:1', '127.0.0.1', 'mapped loopback, long form'],
  ['::FFFF:7F00:1', '127.0.0.1', 'mapped loopback, upper case'],
  ['::ffff:a9fe:a9fe', '169.254.169.254', 'mapped metadata'],
  ['::ffff:10.1.2.3', '10.1.2.3', 'mapped private'],
  ['::ffff:c0a8:101', '192.168.1.1', 'mapped private, hex'],
  ['::ffff:0:7f00:1', '127.0.0.1', 'IPv4-translated (SIIT) loopback'],
  // IPv4-compatible (deprecated).
  ['::127.0.0.1', '127.0.0.1', 'compatible loopback'],
  ['::7f00:1', '127.0.0.1', 'compatible loopback, hex'],
  ['::a9fe:a9fe', '169.254.169.254', 'compatible metadata'],
  // NAT64 well-known prefix.
  ['64:ff9b::127.0.0.1', '127.0.0.1', 'NAT64 loopback'],
  ['64:ff9b::7f00:1', '127.0.0.1', 'NAT64 loopback, hex'],
  ['64:ff9b::a9fe:a9fe', '169.254.169.254', 'NAT64 metadata'],
  // 6to4 embeds an IPv4 in bits 16–47.
  ['2002:7f00:1::', '127.0.0.1', '6to4 of loopback'],
  ['2002:a9fe:a9fe::1', '169.254.169.254', '6to4 of metadata'],
  ['2002:c0a8:101::1', '192.168.1.1', '6to4 of a private address'],
  // Teredo: the client IPv4 is stored inverted in the last 32 bits; the server in bits 32–63.
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', '127.0.0.1', 'Teredo client loopback'],
  ['2001:0:a00:1::', '10.0.0.1', 'Teredo server private'],
];

/** Public addresses, in the same forms: none may be refused. */
const allowed: ReadonlyArray<readonly [string, string]> = [
  ['8.8.8.8', 'public IPv4'],
  ['134744072', 'public IPv4, decimal'],
  ['0x8.0x8.0x8.0x8', 'public IPv4, hex parts'],
  ['010.010.010.010', 'public IPv4, octal parts (8.8.8.8)'],
  ['1.1', 'public IPv4, short (1.0.0.1)'],
  ['93.184.216.34', 'public IPv4'],
  ['172.32.0.1', 'just above 172.16/12'],
  ['100.128.0.1', 'just above 100.64/10'],
  ['198.20.0.1', 'just above 198.18/15'],
  ['169.255.0.1', 'just above 169.254/16'],
  ['2606:4700::1111', 'public IPv6 (Cloudflare)'],
  ['2001:4860:4860::8888', 'public IPv6 (Google)'],
  ['[2606:4700:4700::1111]', 'public IPv6 in brackets'],
  ['::ffff:8.8.8.8', 'mapped public'],
  ['::ffff:808:808', 'mapped public, hex'],
  ['64:ff9b::808:808', 'NAT64 of a public address'],
  ['2002:808:808::1', '6to4 of a public address'],
  ['2001:0:808:808::f7f7:f7f7', 'Teredo with public server and client'],
];

describe('the address guard', () => {
  it.each(refused)('refuses %s (%s, %s)', (written, reaches) => {
    const reason = blockedAddressReason(written);
    expect(reason, written).toBeDefined();
    expect(isBlockedAddress(written)).toBe(true);
    // The message names the address actually reached when it differs from the written one.
    if (reaches.includes('.')) expect(reason).toContain(reaches);
  });

  it('refuses a Teredo address by its server when the client is public, and the reverse', () => {
    expect(isBlockedAddress('2001:0:a00:1:8000:63bf:f7f7:f7f7')).toBe(true);
    expect(isBlockedAddress('2001:0:808:808:8000:63bf:80ff:fffe')).toBe(true);
  });

  it.each(allowed)('allows %s (%s)', (written) => {
    expect(blockedAddressReason(written)).toBeUndefined();
  });

  it('treats host names as names, except the ones meaning this machine', () => {
    expect(blockedAddressReason('example.com')).toBeUndefined();
    expect(blockedAddressReason('1.2.3.4.5')).toBeUndefined();
    expect(blockedAddressReason('256.0.0.1')).toBeUndefined();
    expect(blockedHostReason('localhost')).toBeDefined();
    expect(blockedHostReason('LOCALHOST.')).toBeDefined();
    expect(blockedHostReason('api.localhost')).toBeDefined();
    expect(blockedHostReason('localhost.example.com')).toBeUndefined();
  });

  it('refuses URLs the URL parser rewrote: mapped hex, decimal and short hosts', () => {
    for (const href of [
      'http://[::ffff:127.0.0.1]:8080/',
      'http://[::ffff:7f00:1]/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://017700000001/',
      'http://127.1/',
      'http://[::127.0.0.1]/',
      'http://[64:ff9b::7f00:1]/',
      'http://[2002:7f00:1::]/',
      'http://[fd00:ec2::254]/latest/meta-data/',
      'http://169.254.169.254/latest/meta-data/',
      'http://localhost:3000/',
    ]) {
      expect(() => assertPublicUrl(new URL(href)), href).toThrow(
        expect.objectContaining({ code: 'URL_BLOCKED' }),
      );
    }
    expect(() => assertPublicUrl(new URL('http://[2606:4700::1111]/'))).not.toThrow();
    expect(() => assertPublicUrl(new URL('https://example.com/'))).not.toThrow();
  });

  it('exempts exactly the allowed addresses, in any form', () => {
    const options = { allowedAddresses: ['127.0.0.1'] };
    expect(isBlockedAddress('127.0.0.1', options)).toBe(false);
    expect(isBlockedAddress('::ffff:7f00:1', options)).toBe(false);
    expect(isBlockedAddress('127.0.0.2', options)).toBe(true);
    expect(isBlockedAddress('::ffff:7f00:2', options)).toBe(true);
    expect(isBlockedAddress('::1', options)).toBe(true);
  });
});

/** A resolver answering from a script, counting how often it was asked. */
function scriptedLookup(answers: string[][]): LookupFunction & { calls: number } {
  const lookup = ((_hostname, _options, callback) => {
    const answer = answers[Math.min(lookup.calls, answers.length - 1)] ?? [];
    lookup.calls++;
    callback(
      null,
      answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  }) as LookupFunction & { calls: number };
  lookup.calls = 0;
  return lookup;
}

const lookUp = (lookup: LookupFunction, all: boolean) =>
  new Promise<{ error: NodeJS.ErrnoException | null; answer: string | LookupAddress[] }>(
    (resolve) => lookup('site.test', { all }, (error, answer) => resolve({ error, answer })),
  );

describe('the guarded lookup', () => {
  it('answers public addresses in the shape the socket asked for, resolving once', async () => {
    const resolver = scriptedLookup([['93.184.216.34', '2606:4700::1111']]);
    const lookup = guardedLookup({ lookup: resolver });
    expect((await lookUp(lookup, false)).answer).toBe('93.184.216.34');
    expect((await lookUp(lookup, true)).answer).toHaveLength(2);
    expect(resolver.calls).toBe(2);
  });

  it('refuses a name when any answer is private, whatever form the answer takes', async () => {
    for (const bad of ['127.0.0.1', '::ffff:7f00:1', '::1', '10.0.0.7', 'fd00:ec2::254']) {
      const lookup = guardedLookup({ lookup: scriptedLookup([['93.184.216.34', bad]]) });
      const { error } = await lookUp(lookup, false);
      expect(error, bad).toMatchObject({ code: 'URL_BLOCKED' });
    }
  });

  it('resolvePublic refuses a name that resolves privately and passes one that does not', async () => {
    await expect(
      resolvePublic('site.test', { lookup: scriptedLookup([['::ffff:a9fe:a9fe']]) }),
    ).rejects.toMatchObject({ code: 'URL_BLOCKED' });
    await expect(
      resolvePublic('site.test', { lookup: scriptedLookup([['8.8.8.8']]) }),
    ).resolves.toEqual([{ address: '8.8.8.8', family: 4 }]);
  });
});
