/**
 * The folder relative paths of the `trawl` command mean. `npm run` starts a script in the folder
 * of the package.json that defines it and keeps the caller's folder in `INIT_CWD`; the
 * repository's own `npm run -s trawl -- …` (and `npm start`) should read and write where the user
 * stands, as the installed `trawl` does. Scripts of other packages that call `trawl` keep npm's
 * rule (paths relative to their package), so only this repository's scripts are redirected.
 */

/** The package name of the repository root, whose scripts run the CLI from the sources. */
const checkoutPackage = 'trawl';
/** Its scripts that run the CLI (`npm run -s trawl -- …`, and `npm start` for `trawl serve`). */
const cliScripts = new Set(['trawl', 'start']);

/** The directory to resolve the user's relative paths against. */
export function userDirectory(env: Record<string, string | undefined>, cwd: string): string {
  const initCwd = env['INIT_CWD'];
  // Only these scripts: a test run (`npm test`, `npx vitest`) that starts trawl in a folder of
  // its own keeps that folder.
  const fromCheckoutScript =
    cliScripts.has(env['npm_lifecycle_event'] ?? '') && env['npm_package_name'] === checkoutPackage;
  return initCwd && fromCheckoutScript ? initCwd : cwd;
}
