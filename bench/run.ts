// `npm run bench`: extraction quality (F1) first, then throughput.
//
//   npm run bench                      both benchmarks on the whole corpus
//   npm run bench -- --f1-only         only main-content F1 (extra flags go to main-content.ts)
//   npm run bench -- --speed-only      only throughput (extra flags go to markdown.ts)

import { runMainContent } from './main-content.ts';
import { runThroughput } from './markdown.ts';

const args = process.argv.slice(2);
const f1Only = args.includes('--f1-only');
const speedOnly = args.includes('--speed-only');
const rest = args.filter((a) => a !== '--f1-only' && a !== '--speed-only');

let code = 0;
if (!speedOnly) code |= await runMainContent(f1Only ? rest : []);
if (!f1Only) {
  if (!speedOnly) console.log('\n');
  code |= await runThroughput(speedOnly ? rest : []);
}
process.exitCode = code;
