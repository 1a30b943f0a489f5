/**
 * What a session's CDP clients may ask of its Chromium: the relay checks every
 * command against this before it reaches the pipe.
 *
 * Web content cannot open `file:` or `chrome:` pages nor read the disk by itself: Chromium refuses
 * a page's navigation, frame or fetch to those schemes unless its process was given file access,
 * which only a navigation the browser starts (a CDP command) gives. So the commands that make the
 * browser navigate or read a path are the door, and they are checked here: navigations and new
 * targets load only `http:`, `https:`, `data:`, `blob:` and `about:blank`; file inputs and dropped
 * files cannot name the server's paths; downloads land in the session's own folder; and the
 * commands that hand CDP to something the relay does not see (DevTools windows, a page's own CDP
 * binding, extensions, remote targets) are refused.
 *
 * Chromium's own URLBlocklist policy would say the same, but Linux Chromium reads policies only
 * from /etc/chromium/policies/managed, for every Chromium of the machine and writable by root
 * alone; it has no switch for a policy file of one process.
 *
 * A guarded session's Chromium sends every connection through the session's guard proxy (see
 * sessions.ts). The one CDP command that can take a context's traffic around it is
 * `Target.createBrowserContext` with a proxy of the client's own, so that is refused in guarded
 * sessions. Other commands that touch requests keep them inside Chromium's network stack, hence
 * behind the proxy: `Fetch.continueRequest` with a new URL, `Network.loadNetworkResource`,
 * service workers, prefetches. `Fetch.fulfillRequest` answers without any connection at all.
 */

/** Schemes a session's pages may load. */
const allowedSchemes = new Set(['http:', 'https:', 'data:', 'blob:']);
/**
 * `about:` pages that are not Chromium's own: Chromium turns `about:version`, `about:settings` and
 * the like into `chrome://` pages.
 */
const allowedAboutPages = new Set(['about:blank', 'about:srcdoc']);

/** Whole domains no client needs and each of which can reach the disk or escape the relay. */
const refusedDomains = new Set([
  'Extensions',
  'PWA',
  'FileSystem',
  // Makes the browser listen on a port of the server's machine for the client.
  'Tethering',
]);

/** Commands refused, with why (the reason goes back to the client as the CDP error). */
const refusedMethods: Record<string, string> = {
  'DOM.setFileInputFiles':
    'file inputs cannot take files from the server’s disk; give the file’s contents (setInputFiles with a buffer)',
  'Page.handleFileChooser': 'file choosers cannot take files from the server’s disk',
  'Target.exposeDevToolsProtocol': 'a page may not drive the browser over CDP',
  // Messages wrapped for an unflattened session would pass the relay unread.
  'Target.sendMessageToTarget': 'sessions speak flattened CDP only (flatten: true)',
  'Target.openDevTools': 'DevTools windows are not available in sessions',
  'Target.setRemoteLocations': 'remote targets are not available in sessions',
  'Browser.crash': 'not available in sessions',
  'Browser.crashGpuProcess': 'not available in sessions',
};

/** What the policy needs to know of the session it checks commands for. */
export interface SessionPolicy {
  /** The session's download folder, which replaces any folder a client names. */
  downloadsDir: string;
  /** Whether the session's traffic goes through a guard proxy that clients may not leave. */
  isNetworkGuarded: boolean;
}

/** What the policy decided about one command. */
export type CdpVerdict = { allowed: true; params: unknown } | { allowed: false; reason: string };

/** True when a session's browser may load `url`. */
export function isSessionUrlAllowed(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === 'about:') return allowedAboutPages.has(`about:${parsed.pathname}`);
  return allowedSchemes.has(parsed.protocol);
}

/**
 * Checks one command of a client for a session.
 *
 * @param method the CDP method, e.g. `Page.navigate`
 * @param params its parameters as sent
 */
export function checkCdpCommand(
  method: string,
  params: unknown,
  { downloadsDir, isNetworkGuarded }: SessionPolicy,
): CdpVerdict {
  const record = isRecord(params) ? params : {};
  const domain = method.split('.')[0] ?? '';
  if (refusedDomains.has(domain)) {
    return { allowed: false, reason: `${domain} is not available in sessions` };
  }
  const refusal = refusedMethods[method];
  if (refusal) return { allowed: false, reason: `${method}: ${refusal}` };
  switch (method) {
    case 'Page.navigate':
    case 'Network.loadNetworkResource':
      return urlVerdict(method, record['url'], params);
    case 'Fetch.continueRequest':
    case 'Network.continueInterceptedRequest':
      // An intercepted request may be sent on to another URL (Chromium refuses file: there
      // today; the relay does not count on it).
      return record['url'] === undefined
        ? { allowed: true, params }
        : urlVerdict(method, record['url'], params);
    case 'Target.createTarget':
      // An empty url opens about:blank.
      return record['url'] === ''
        ? { allowed: true, params }
        : urlVerdict(method, record['url'], params);
    case 'Target.createBrowserContext':
      // Playwright sends these only for `newContext({ proxy })`; absent keys mean the launch
      // proxy, which is the guard.
      if (isNetworkGuarded && ('proxyServer' in record || 'proxyBypassList' in record)) {
        return {
          allowed: false,
          reason: `${method}: a context may not have a proxy of its own in this session: its traffic goes through the server’s address guard (private addresses are refused)`,
        };
      }
      return { allowed: true, params };
    case 'Input.dispatchDragEvent': {
      const data = isRecord(record['data']) ? record['data'] : {};
      const files = data['files'];
      if (Array.isArray(files) && files.length > 0) {
        return {
          allowed: false,
          reason: `${method}: dropped files cannot come from the server’s disk`,
        };
      }
      return { allowed: true, params };
    }
    case 'Browser.setDownloadBehavior':
    case 'Page.setDownloadBehavior':
      // The client's folder is a path of its own machine, or of the server's disk: downloads go
      // to the session's folder instead, which ends with the session.
      return 'downloadPath' in record
        ? { allowed: true, params: { ...record, downloadPath: downloadsDir } }
        : { allowed: true, params };
    default:
      return { allowed: true, params };
  }
}

function urlVerdict(method: string, url: unknown, params: unknown): CdpVerdict {
  if (typeof url === 'string' && isSessionUrlAllowed(url)) return { allowed: true, params };
  return {
    allowed: false,
    reason: `${method}: ${JSON.stringify(url)} is refused: sessions load only http:, https:, data:, blob: and about:blank URLs`,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
