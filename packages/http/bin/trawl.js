#!/usr/bin/env -S node --max-semi-space-size=8
// The flag: on a machine with much memory V8 reserves a 128 MB young generation, most of a
// crawl's resident memory; 8 MB semi-spaces keep a 20,000-page crawl well under 400 MB at about the
// same speed (bench/README.md, "Crawl").
// Installed entry: runs the compiled CLI (dist/, built by `npm pack`'s prepack). In the
// repository, `npm run -s trawl` runs the TypeScript sources directly.

// Checked before anything is imported: the engine needs node:sqlite (unflagged since 22.13) and zstd (22.15), and
// an older `node` first on PATH would otherwise die with a stack trace about a missing built-in.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 15)) {
  process.stderr.write(
    `trawl: Trawl needs Node.js 22 or newer (22.15+); this is Node.js ${process.versions.node} (${process.execPath}). Put a newer node first on PATH.\n`,
  );
  process.exit(2);
}
await import('../dist/bin.js');
