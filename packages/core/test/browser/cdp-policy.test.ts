import { describe, expect, it } from 'vitest';
import { checkCdpCommand, isSessionUrlAllowed } from '../../src/browser/cdp-policy.js';

const downloads = '/tmp/trawl-session-x/downloads';
const guarded = { downloadsDir: downloads, isNetworkGuarded: true };
const unguarded = { downloadsDir: downloads, isNetworkGuarded: false };

describe('the CDP policy of browser sessions', () => {
  it.each([
    ['https://example.com/', true],
    ['http://127.0.0.1:8080/a', true],
    ['data:text/html,<p>hi', true],
    ['blob:https://example.com/5c1f', true],
    ['about:blank', true],
    ['file:///etc/passwd', false],
    ['FILE:///etc/passwd', false],
    ['file://localhost/etc/passwd', false],
    ['chrome://version', false],
    ['chrome-untrusted://terminal', false],
    ['devtools://devtools/bundled/inspector.html', false],
    ['view-source:https://example.com', false],
    ['about:version', false],
    ['javascript:alert(1)', false],
    ['filesystem:https://example.com/temporary/a', false],
    ['/etc/passwd', false],
    ['', false],
  ])('loads %s: %s', (url, allowed) => {
    expect(isSessionUrlAllowed(url)).toBe(allowed);
  });

  it('refuses navigations and new tabs to refused URLs, and allows a blank tab', () => {
    expect(checkCdpCommand('Page.navigate', { url: 'file:///etc/passwd' }, guarded)).toMatchObject({
      allowed: false,
      reason: expect.stringContaining('refused'),
    });
    expect(
      checkCdpCommand('Target.createTarget', { url: 'chrome://settings' }, guarded),
    ).toMatchObject({ allowed: false });
    expect(checkCdpCommand('Target.createTarget', { url: '' }, guarded)).toMatchObject({
      allowed: true,
    });
    expect(
      checkCdpCommand(
        'Fetch.continueRequest',
        { requestId: '1', url: 'file:///etc/passwd' },
        guarded,
      ),
    ).toMatchObject({ allowed: false });
    expect(checkCdpCommand('Fetch.continueRequest', { requestId: '1' }, guarded)).toMatchObject({
      allowed: true,
    });
  });

  it('refuses paths of the server’s disk and the doors around the relay', () => {
    for (const [method, params] of [
      ['DOM.setFileInputFiles', { files: ['/etc/passwd'], nodeId: 1 }],
      [
        'Input.dispatchDragEvent',
        { type: 'drop', x: 1, y: 1, data: { items: [], files: ['/a'], dragOperationsMask: 1 } },
      ],
      ['Target.exposeDevToolsProtocol', { targetId: 'x' }],
      ['Target.sendMessageToTarget', { message: '{}', sessionId: 's' }],
      ['Extensions.loadUnpacked', { path: '/tmp/ext' }],
      ['PWA.install', { manifestId: 'x', installUrlOrBundleUrl: 'file:///x' }],
    ] as const) {
      expect(checkCdpCommand(method, params, guarded), method).toMatchObject({ allowed: false });
    }
  });

  it('sends downloads to the session’s folder, whatever folder the client names', () => {
    expect(
      checkCdpCommand(
        'Browser.setDownloadBehavior',
        { behavior: 'allowAndName', downloadPath: '/etc', eventsEnabled: true },
        guarded,
      ),
    ).toEqual({
      allowed: true,
      params: { behavior: 'allowAndName', downloadPath: downloads, eventsEnabled: true },
    });
  });

  it.each([
    ['Target.createBrowserContext', { proxyServer: 'http://127.0.0.1:3128' }, false],
    ['Target.createBrowserContext', { proxyServer: 'direct://' }, false],
    ['Target.createBrowserContext', { proxyServer: '' }, false],
    ['Target.createBrowserContext', { proxyBypassList: '*' }, false],
    [
      'Target.createBrowserContext',
      { disposeOnDetach: true, proxyServer: 'socks5://10.0.0.1:1080', proxyBypassList: '' },
      false,
    ],
    ['Tethering.bind', { port: 9222 }, false],
    ['Target.createBrowserContext', { disposeOnDetach: true }, true],
    ['Target.createBrowserContext', {}, true],
    ['Network.setBypassServiceWorker', { bypass: true }, true],
    ['Fetch.continueRequest', { requestId: '1', url: 'http://10.0.0.1/' }, true],
    ['Network.loadNetworkResource', { url: 'http://127.0.0.1/', options: {} }, true],
    ['Fetch.fulfillRequest', { requestId: '1', responseCode: 200 }, true],
  ] as const)(
    'keeps a guarded session behind its proxy: %s %j allowed: %s',
    (method, params, allowed) => {
      // Requests that stay inside Chromium's network stack still pass the guard proxy.
      expect(checkCdpCommand(method, params, guarded)).toMatchObject({ allowed });
    },
  );

  it('lets an unguarded session give a context its own proxy', () => {
    const params = { proxyServer: 'http://127.0.0.1:3128', proxyBypassList: '' };
    expect(checkCdpCommand('Target.createBrowserContext', params, unguarded)).toEqual({
      allowed: true,
      params,
    });
  });

  it('lets the rest through unchanged', () => {
    const params = { expression: '1 + 1' };
    expect(checkCdpCommand('Runtime.evaluate', params, guarded)).toEqual({
      allowed: true,
      params,
    });
  });
});
