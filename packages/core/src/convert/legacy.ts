/**
 * Legacy binary Office files (DOC, XLS, PPT) through LibreOffice: `soffice --headless
 * --convert-to` turns them into DOCX, XLSX and PPTX, which the OOXML readers then read. No npm
 * reader fits: the npm `xlsx` (SheetJS) package stopped at 0.18.5 with known advisories (SheetJS
 * now publishes only to its own CDN), and there is no maintained pure-JS DOC or PPT reader.
 *
 * LibreOffice is the machine's own, found like Chromium: the configured path (`sofficePath`,
 * TRAWL_SOFFICE_PATH for the server), else the usual install paths. Each conversion runs in a
 * private temporary folder with a private user profile (so conversions never share or lock a
 * profile, and nothing of one file is left for the next), under a deadline, and is killed with
 * its whole process group when the deadline passes.
 */
import { spawn } from 'node:child_process';
import { readdirSync, realpathSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { NotConfiguredError, TimeoutError, ValidationError } from '../errors.ts';
import { findExecutable } from '../internal/find-executable.ts';

/** The legacy kinds, and the OOXML kind each becomes. */
export const legacyTargets = { doc: 'docx', xls: 'xlsx', ppt: 'pptx' } as const;
export type LegacyKind = keyof typeof legacyTargets;

/** Where LibreOffice's soffice usually lives, most likely first. */
export const sofficeCandidates: readonly string[] = [
  '/usr/bin/soffice',
  '/usr/bin/libreoffice',
  '/usr/lib/libreoffice/program/soffice',
  '/opt/libreoffice/program/soffice',
  '/usr/local/bin/soffice',
  '/snap/bin/libreoffice',
  '/Applications/LibreOffice.app/Contents/MacOS/soffice',
];

/** The setting that points at soffice, for error messages. */
export const sofficeSettingName = 'TRAWL_SOFFICE_PATH';

/**
 * The soffice executable. A configured path must exist: falling back to another would hide a
 * typo in the setting.
 *
 * @throws NOT_CONFIGURED naming TRAWL_SOFFICE_PATH when LibreOffice is not found
 */
export function findSoffice(
  configuredPath: string | undefined,
  candidates: readonly string[] = sofficeCandidates,
): string {
  return findExecutable(configuredPath, candidates, {
    badConfigured: (path) =>
      new NotConfiguredError(
        `${sofficeSettingName} (sofficePath) is ${path}, which is not an executable file: point it at LibreOffice's soffice`,
      ),
    notFound: (looked) =>
      new NotConfiguredError(
        `Legacy DOC, XLS and PPT files are converted by LibreOffice, which was not found: install it (Debian: apt-get install libreoffice-core-nogui) or set ${sofficeSettingName} (sofficePath) to its soffice executable. Looked at: ${looked.join(', ')}`,
      ),
  });
}

/** LibreOffice filter names of the conversions. */
const filters: Record<LegacyKind, string> = {
  doc: 'docx:MS Word 2007 XML',
  xls: 'xlsx:Calc MS Excel 2007 XML',
  ppt: 'pptx:Impress MS PowerPoint 2007 XML',
};

export interface ConvertOptions {
  /** soffice to run; found by findSoffice when unset. */
  sofficePath?: string | undefined;
  /** Epoch milliseconds after which the conversion is killed (SCRAPE_TIMEOUT). */
  deadline?: number | undefined;
}

/**
 * A legacy file converted to its OOXML kind.
 *
 * @throws NOT_CONFIGURED without LibreOffice; BAD_REQUEST when it cannot convert the file;
 * SCRAPE_TIMEOUT past the deadline
 */
export async function convertLegacy(
  bytes: Uint8Array,
  kind: LegacyKind,
  options: ConvertOptions = {},
): Promise<Uint8Array> {
  const soffice = findSoffice(options.sofficePath);
  const folder = await mkdtemp(join(tmpdir(), 'trawl-soffice-'));
  try {
    const input = join(folder, `input.${kind}`);
    await writeFile(input, bytes, { mode: 0o600 });
    const remainingMs = Math.max(1000, (options.deadline ?? Date.now() + 60_000) - Date.now());
    const args = [
      '--headless',
      '--norestore',
      '--nolockcheck',
      '--nodefault',
      '--nofirststartwizard',
      `-env:UserInstallation=${pathToFileURL(join(folder, 'profile')).href}`,
      '--convert-to',
      filters[kind],
      '--outdir',
      join(folder, 'out'),
      input,
    ];
    const outcome = await run(soffice, args, remainingMs, folder);
    if (outcome === 'timeout')
      throw new TimeoutError(`Converting the ${kind.toUpperCase()} file timed out`);
    const output = await readFile(join(folder, 'out', `input.${legacyTargets[kind]}`)).catch(
      () => undefined,
    );
    if (!output?.length) {
      const missing = missingComponent(soffice, kind);
      if (missing)
        throw new NotConfiguredError(
          `The LibreOffice at ${soffice} has no ${missing.name}, which ${kind.toUpperCase()} files need: install it (Debian: apt-get install ${missing.debian}) or point ${sofficeSettingName} at a full LibreOffice`,
        );
      throw new ValidationError(
        `The ${kind.toUpperCase()} file is damaged or cannot be read: LibreOffice could not convert it`,
      );
    }
    return new Uint8Array(output);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** The LibreOffice module each kind needs, by its library in the program folder. */
const components: Record<LegacyKind, { library: string; name: string; debian: string }> = {
  doc: { library: 'libswlo.so', name: 'Writer', debian: 'libreoffice-writer-nogui' },
  xls: { library: 'libsclo.so', name: 'Calc', debian: 'libreoffice-calc-nogui' },
  ppt: { library: 'libsdlo.so', name: 'Impress', debian: 'libreoffice-impress-nogui' },
};

/**
 * The module a failed conversion lacked, when the installation is one whose program folder shows
 * its modules (Linux packages split Writer, Calc and Impress); undefined when it cannot tell.
 */
function missingComponent(soffice: string, kind: LegacyKind) {
  try {
    const program = dirname(realpathSync(soffice));
    const libraries = readdirSync(program);
    if (!libraries.some((name) => /^lib\w+lo\.so$/.test(name))) return undefined;
    return libraries.includes(components[kind].library) ? undefined : components[kind];
  } catch {
    return undefined;
  }
}

/** Runs soffice in its own process group, killing the whole group past `timeoutMs`. */
function run(
  command: string,
  args: string[],
  timeoutMs: number,
  home: string,
): Promise<'done' | 'timeout'> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      detached: true,
      stdio: 'ignore',
      // Its own HOME too: nothing LibreOffice writes lands in the server's home.
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8' },
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new NotConfiguredError(`LibreOffice could not be started: ${error.message}`));
    });
    child.on('exit', () => {
      clearTimeout(timer);
      resolve(timedOut ? 'timeout' : 'done');
    });
  });
}
