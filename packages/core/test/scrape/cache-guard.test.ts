/**
 * A cached page is judged by the private-address guard as a fetch of it would be: its request
 * and final URLs as written, and, for a page stored without the guard (by the CLI), the
 * addresses its host names resolve to now. The resolver is the guard's own `lookup` option,
 * answering fixed addresses for names that do not exist on this machine.
 */
import type { LookupFunction } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  assertCachedPageAllowed,
  cachedPageAllowed,
  type CachedPage,
} from '../../src/scrape/cache.js';

/** intranet.test is private, www.public.test public; other names do not resolve. */
const lookup = ((hostname, options, callback) => {
  const address = { 'intranet.test': '10.1.2.3', 'www.public.test': '93.184.216.34' }[hostname];
  if (!address) {
    callback(Object.assign(new Error(`${hostname} not found`), { code: 'ENOTFOUND' }), '', 0);
    return;
  }
  if (options.all) callback(null, [{ address, family: 4 }]);
  else callback(null, address, 4);
}) as LookupFunction;
const guard = { lookup };

const page = (url: string, guarded?: boolean): CachedPage => ({
  url,
  status: 200,
  contentType: 'text/html',
  text: '<p>cached</p>',
  charset: 'utf-8',
  fetchedAt: Date.now(),
  ...(guarded === undefined ? {} : { guarded }),
});

describe('cachedPageAllowed', () => {
  it('refuses a page whose request or final URL is a private address, however stored', async () => {
    for (const guarded of [undefined, true]) {
      await expect(
        cachedPageAllowed(
          new URL('http://127.0.0.1:8080/'),
          page('http://127.0.0.1:8080/', guarded),
          guard,
        ),
      ).rejects.toMatchObject({ code: 'URL_BLOCKED' });
      await expect(
        cachedPageAllowed(
          new URL('http://www.public.test/'),
          page('http://[::ffff:7f00:1]/admin', guarded),
          guard,
        ),
      ).rejects.toMatchObject({ code: 'URL_BLOCKED' });
    }
  });

  it('resolves the host names of a page stored unguarded, and refuses a private answer', async () => {
    await expect(
      cachedPageAllowed(new URL('http://intranet.test/'), page('http://intranet.test/'), guard),
    ).rejects.toMatchObject({ code: 'URL_BLOCKED', message: /10\.1\.2\.3/ });
    // A public request that redirected to a private name.
    await expect(
      cachedPageAllowed(new URL('http://www.public.test/'), page('http://intranet.test/x'), guard),
    ).rejects.toMatchObject({ code: 'URL_BLOCKED' });
    expect(
      await cachedPageAllowed(
        new URL('http://www.public.test/'),
        page('http://www.public.test/'),
        guard,
      ),
    ).toBe(true);
  });

  it('trusts the lookup a guarded fetch made, and answers nothing for a name that does not resolve', async () => {
    // Stored by a guarded fetch: its addresses were checked when it was fetched.
    expect(
      await cachedPageAllowed(new URL('http://gone.test/'), page('http://gone.test/', true), guard),
    ).toBe(true);
    expect(
      await cachedPageAllowed(new URL('http://gone.test/'), page('http://gone.test/'), guard),
    ).toBe(false);
    await expect(
      assertCachedPageAllowed(new URL('http://gone.test/'), page('http://gone.test/'), guard),
    ).rejects.toMatchObject({ code: 'URL_BLOCKED' });
  });
});
