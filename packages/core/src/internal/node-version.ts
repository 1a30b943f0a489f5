/**
 * Refuses to load on a Node.js without an unflagged `node:sqlite` (22.13) and zstd in
 * `node:zlib` (22.15), with one clear sentence instead of the stack trace a missing built-in
 * gives. `index.ts` imports this module first, so it runs before any other module of the
 * package; nothing in the package may name a Node-22-only built-in in a static import
 * (`sqlite-store.ts` loads `node:sqlite` with `process.getBuiltinModule`, `fetch-http.ts` reads
 * zstd through the zlib namespace), or linking would fail before this runs.
 */

/** The oldest Node.js release Trawl runs on: `node:sqlite` unflagged, and zstd. */
export const minimumNodeVersion = [22, 15] as const;

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const [needMajor, needMinor] = minimumNodeVersion;
if (major < needMajor || (major === needMajor && minor < needMinor)) {
  throw new Error(
    `Trawl needs Node.js ${needMajor} or newer (${needMajor}.${needMinor}+, for node:sqlite and zstd); this is Node.js ${process.versions.node} (${process.execPath}).`,
  );
}
