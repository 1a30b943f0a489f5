/**
 * Regenerates the parse corpus's documents: every source under sources/ (LibreOffice flat XML,
 * written by hand) is converted by LibreOffice headless into each format its truth file lists,
 * into out/. The outputs are committed, so tests and CI never need LibreOffice; run this only
 * after changing a source or adding an output format:
 *
 *   npx node --experimental-strip-types test/parse-corpus/build.ts [--force]
 *
 * Only missing outputs and those older than their source are made again (a conversion stamps
 * new dates into the file, so rebuilding all of them would change every binary); --force
 * remakes them all.
 * As a guard against a typo in a hand-written truth file, each text document is also exported
 * to plain text by LibreOffice and compared with its truth; the build fails when they differ
 * more than line breaks and footnote numbers can explain (or, for a source with frames, which
 * that export leaves out, when a line of it is not a block of the truth). Set SOFFICE to use
 * another binary.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { corpusDir, loadCorpus, orderedBlockTexts, type Truth, truthPlainText } from './corpus.ts';
import { textSimilarity } from './metrics.ts';

const soffice = process.env.SOFFICE ?? 'soffice';

/**
 * Whether every line of LibreOffice's text is a block of the truth, in the truth's order.
 * LibreOffice's text export leaves frames out (text boxes, charts), so for a source whose text
 * partly lives in frames the whole texts cannot agree; what it does export must still match.
 */
function linesInTruth(exported: string, truth: Truth): boolean {
  const blocks = orderedBlockTexts(truth);
  let at = 0;
  for (const line of exported.replace(/^\uFEFF/, '').split('\n')) {
    const text = line.replace(/\s+/g, ' ').trim();
    if (text === '') continue;
    const found = blocks.indexOf(text, at);
    if (found < 0) return false;
    at = found + 1;
  }
  return true;
}
const force = process.argv.includes('--force');
/** Below this, LibreOffice's own text of a source and its truth file disagree on the wording. */
const minTruthAgreement = 0.97;

// A private profile: a LibreOffice already running under the default profile (or another
// build) would otherwise swallow the conversion request and exit without converting.
const profile = mkdtempSync(join(tmpdir(), 'trawl-corpus-lo-'));
const convert = (source: string, format: string, outDir: string) =>
  execFileSync(
    soffice,
    [
      `-env:UserInstallation=${pathToFileURL(profile).href}`,
      '--headless',
      '--norestore',
      '--convert-to',
      format,
      '--outdir',
      outDir,
      source,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 },
  );

try {
  const outDir = join(corpusDir, 'out');
  const scratch = mkdtempSync(join(tmpdir(), 'trawl-corpus-txt-'));
  for (const entry of loadCorpus()) {
    const sourceTime = statSync(entry.sourcePath).mtimeMs;
    for (const output of entry.outputs) {
      const fresh = existsSync(output.path) && statSync(output.path).mtimeMs >= sourceTime;
      if (fresh && !force) continue;
      convert(entry.sourcePath, output.format, outDir);
      console.log(`${entry.name}: ${output.path}`);
    }
    if (entry.sourcePath.endsWith('.fodt')) {
      convert(entry.sourcePath, 'txt:Text (encoded):UTF8', scratch);
      const exported = readFileSync(join(scratch, `${entry.name}.txt`), 'utf8');
      const agreement = textSimilarity(truthPlainText(entry.truth, { footnotes: false }), exported);
      console.log(`${entry.name}: truth agrees with LibreOffice's text at ${agreement.toFixed(3)}`);
      if (agreement < minTruthAgreement && !linesInTruth(exported, entry.truth)) {
        writeFileSync(join(scratch, `${entry.name}.truth.txt`), truthPlainText(entry.truth));
        throw new Error(
          `${entry.name}.truth.json disagrees with its source (${agreement.toFixed(3)}); compare the files in ${scratch}`,
        );
      }
    }
  }
  rmSync(scratch, { recursive: true, force: true });
} finally {
  rmSync(profile, { recursive: true, force: true });
}
