#!/usr/bin/env -S node --max-semi-space-size=16
// The flag: on a machine with much memory V8 reserves a 128 MB young generation, most of a
// crawl's resident memory. 16 MB, not less: the flag binds the conversion threads too, and a
// page's conversion allocates more than 8 MB, so at 8 its live tree outlived two scavenges, was
// promoted, and the thread ran a full GC every ~40 pages (18 % more CPU per page and
// more memory, bench/README.md, "Second pass: CPU per page").
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
