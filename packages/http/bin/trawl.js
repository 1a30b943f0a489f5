#!/usr/bin/env -S node --max-semi-space-size=8
// The flag: on a machine with much memory V8 reserves a 128 MB young generation, most of a
// crawl's resident memory; 8 MB semi-spaces keep a 20,000-page crawl well under 400 MB at about the
// same speed (bench/README.md, "Crawl").
// Installed entry: runs the compiled CLI (npm run build). In the repository, `npm run trawl`
// runs the TypeScript sources directly.
await import('../dist/bin.js');
