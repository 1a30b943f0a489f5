#!/usr/bin/env node
// Installed entry: runs the compiled CLI (npm run build). In the repository, `npm run trawl`
// runs the TypeScript sources directly.
await import('../dist/bin.js');
