/**
 * The README and docs/ as a test: every fenced block whose info string says `runnable`
 * (```` ```js runnable ````, `ts runnable`, `sh runnable`) runs as pasted, and every js/ts block
 * marked `runnable` or `typecheck` compiles as TypeScript under the project's strict settings.
 *
 * What a block meets, so that the README cannot drift from the code:
 * - `https://example.com` (and every path under it) is replaced by the local fixture site;
 *   README examples use paths the fixture site serves (`/`, `/docs/`, `/docs/configuration.html`).
 * - It runs in an empty folder whose `node_modules` is the checkout's, holding `annual-report.pdf`
 *   and `report.pdf` (a fixture PDF) for the parse examples.
 * - js/ts blocks run on the pinned Node with the `development` condition (the sources, no build);
 *   sh blocks run in bash (`-euo pipefail`) with a `trawl` on PATH that runs the checkout's CLI.
 * - A runnable block followed by a ```` ```markdown output ```` block must print exactly that.
 * - After an sh block, every `*.jsonl` file it wrote must hold one JSON document per line.
 */
import { execFile } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { beforeAll, describe, expect, inject, it } from 'vitest';

const site = inject('fixtureUrl');
const repo = join(import.meta.dirname, '../..');
const exec = promisify(execFile);

/** One fenced block of the README. */
interface Block {
  language: string;
  marks: string[];
  code: string;
  /** 1-based line of the opening fence, to name the block. */
  line: number;
  /** The file it is in, relative to the repository: README.md or docs/<name>.md. */
  file?: string;
  /** The ```` ```markdown output ```` block right after it, if any. */
  output?: string;
}

/** The fenced blocks of a markdown text, in order. */
function fencedBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const fence = /^```(\S*)([^\n]*)\n([\s\S]*?)^```[ \t]*$/gm;
  for (let match = fence.exec(markdown); match; match = fence.exec(markdown)) {
    const [, language = '', rest = '', code = ''] = match;
    const block: Block = {
      language,
      marks: rest.trim().split(/\s+/).filter(Boolean),
      code,
      line: markdown.slice(0, match.index).split('\n').length,
    };
    const previous = blocks.at(-1);
    // An output block belongs to the block before it when only prose lies between them.
    if (block.marks.includes('output') && previous) previous.output = code;
    blocks.push(block);
  }
  return blocks;
}

// The docs are held to the README's rule: a block marked runnable runs as pasted.
const documents = [
  'README.md',
  ...readdirSync(join(repo, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const blocks = documents.flatMap((file) =>
  fencedBlocks(readFileSync(join(repo, file), 'utf8')).map((block) => ({ ...block, file })),
);
/** A name for the block unique across the documents, usable in a file name. */
const blockName = (block: Block) =>
  `${(block.file ?? 'README.md').replace(/\W+/g, '-')}-${block.line}`;
const isCode = (block: Block) => ['js', 'ts', 'sh'].includes(block.language);
const runnable = blocks.filter((block) => isCode(block) && block.marks.includes('runnable'));
const typed = blocks.filter(
  (block) =>
    (block.language === 'js' || block.language === 'ts') &&
    (block.marks.includes('runnable') || block.marks.includes('typecheck')),
);
/** The README's example site, replaced by the fixture site's URL. */
const withFixture = (code: string) => code.replaceAll('https://example.com', site);

const folder = mkdtempSync(join(tmpdir(), 'trawl-readme-'));
const binDir = join(folder, '.bin');
/** The environment of a block: no TRAWL_* setting of the test run leaks in. */
const env: Record<string, string> = {
  ...Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        !entry[0].startsWith('TRAWL_') && entry[1] !== undefined,
    ),
  ),
  PATH: `${binDir}:${process.env['PATH'] ?? ''}`,
};

beforeAll(() => {
  symlinkSync(join(repo, 'node_modules'), join(folder, 'node_modules'));
  const pdf = join(repo, 'packages/core/test/parse/fixtures/simple.pdf');
  copyFileSync(pdf, join(folder, 'annual-report.pdf'));
  copyFileSync(pdf, join(folder, 'report.pdf'));
  mkdirSync(binDir);
  const trawl = join(binDir, 'trawl');
  writeFileSync(
    trawl,
    `#!/bin/sh\nexec "${process.execPath}" --max-semi-space-size=16 --conditions=development --experimental-strip-types "${join(repo, 'packages/http/src/bin.ts')}" "$@"\n`,
  );
  chmodSync(trawl, 0o755);
});

async function run(file: string, args: string[]) {
  try {
    const { stdout, stderr } = await exec(file, args, {
      cwd: folder,
      env,
      timeout: 150_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('the README', () => {
  it('marks its examples runnable', () => {
    expect(runnable.length).toBeGreaterThanOrEqual(8);
    expect(runnable.some((block) => block.language === 'sh')).toBe(true);
  });

  for (const block of runnable) {
    it(`runs the ${block.language} block at ${block.file}:${block.line} as pasted`, async () => {
      const code = withFixture(block.code);
      let result;
      if (block.language === 'sh') {
        result = await run('bash', ['-euo', 'pipefail', '-c', code]);
      } else {
        const file = join(
          folder,
          `block-${blockName(block)}.${block.language === 'ts' ? 'mts' : 'mjs'}`,
        );
        writeFileSync(file, code);
        result = await run(process.execPath, [
          '--conditions=development',
          '--experimental-strip-types',
          file,
        ]);
      }
      expect(result.code, result.stderr).toBe(0);
      if (block.output !== undefined)
        expect(result.stdout.trim()).toBe(withFixture(block.output).trim());
      if (block.language === 'sh') {
        for (const name of readdirSync(folder).filter((entry) => entry.endsWith('.jsonl'))) {
          const lines = readFileSync(join(folder, name), 'utf8').trimEnd().split('\n');
          expect(lines.length, name).toBeGreaterThan(0);
          for (const line of lines) expect(() => JSON.parse(line) as unknown, name).not.toThrow();
        }
      }
    }, 300_000);
  }

  it('has js and ts blocks that compile under strict TypeScript', () => {
    const dir = join(folder, 'typecheck');
    mkdirSync(dir, { recursive: true });
    const files = typed.map((block) => {
      const file = join(dir, `block-${blockName(block)}.mts`);
      writeFileSync(file, block.code);
      return file;
    });
    const program = ts.createProgram(files, {
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      target: ts.ScriptTarget.ES2024,
      lib: ['lib.es2024.d.ts'],
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      customConditions: ['development'],
      allowImportingTsExtensions: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
      typeRoots: [join(repo, 'node_modules/@types')],
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((diagnostic) => diagnostic.file?.fileName.startsWith(dir))
      .map((diagnostic) => {
        const where = diagnostic.file?.fileName.replace(`${dir}/`, 'README ') ?? '';
        const line =
          diagnostic.file && diagnostic.start !== undefined
            ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1
            : 0;
        return `${where}:${line}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
      });
    expect(problems).toEqual([]);
  }, 180_000);
});
