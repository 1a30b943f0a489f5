/**
 * Finding a Chromium on the machine. Trawl never downloads a browser: it uses the one
 * the operator installed, named in the configuration or found at the usual install paths.
 */
import { NotConfiguredError } from '../errors.ts';
import { findExecutable } from '../internal/find-executable.ts';

/** Where Chromium or Chrome usually lives, most likely first (Debian's package first). */
export const chromiumCandidates: readonly string[] = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/lib/chromium/chromium',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome',
  '/opt/google/chrome/chrome',
  '/snap/bin/chromium',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

/** The name of the setting that points at the browser, for error messages. */
export const chromiumSettingName = 'TRAWL_CHROMIUM_PATH';

/** How to look for Chromium; every part can be replaced (tests simulate a machine without one). */
export interface ChromiumLookup {
  /** The configured path (`chromiumPath`, `TRAWL_CHROMIUM_PATH` for the server); wins when set. */
  configuredPath?: string | undefined;
  /** Paths tried, in order, when none is configured. @default chromiumCandidates */
  candidates?: readonly string[];
  /** Whether a path is an executable file. @default a check with fs.accessSync(X_OK) */
  isExecutable?: (path: string) => boolean;
}

/**
 * The Chromium executable to launch. A configured path must exist: falling back to another
 * browser would hide a typo in the setting.
 *
 * @throws NOT_CONFIGURED naming TRAWL_CHROMIUM_PATH when no browser is found
 */
export function findChromium(lookup: ChromiumLookup = {}): string {
  return findExecutable(
    lookup.configuredPath,
    lookup.candidates ?? chromiumCandidates,
    {
      badConfigured: (path) =>
        new NotConfiguredError(
          `${chromiumSettingName} (chromiumPath) is ${path}, which is not an executable file: point it at a Chromium or Chrome binary`,
          { details: [{ path: ['chromiumPath'], message: 'not an executable file' }] },
        ),
      notFound: (looked) =>
        new NotConfiguredError(
          `No Chromium was found for the browser engine: install one (Debian: apt-get install chromium) or set ${chromiumSettingName} (chromiumPath in the engine config) to its executable. Looked at: ${looked.join(', ') || 'no paths'}`,
          { details: [{ path: ['chromiumPath'], message: 'no browser found' }] },
        ),
    },
    lookup.isExecutable,
  );
}
