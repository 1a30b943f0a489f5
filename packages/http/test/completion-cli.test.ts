/** `trawl completion`: the scripts name every command and the flags their help lists. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '@trawl/http';
import { flagsOfHelp } from '../src/cli/completion.js';

async function completion(shell: string) {
  let stdout = '';
  const code = await runCli(['completion', shell], {
    stdout: (text) => (stdout += text),
    stderr: () => undefined,
    env: {},
  });
  return { code, stdout };
}

describe('trawl completion', () => {
  it('reads the long flags from a help text', () => {
    expect(
      flagsOfHelp('Options:\n  --format <f>   x\n  -q, --quiet    y\n  --no-main-content  z\n'),
    ).toEqual(['--format', '--quiet', '--no-main-content', '--help']);
  });

  it('completes commands and their flags in bash', async () => {
    const { code, stdout } = await completion('bash');
    expect(code).toBe(0);
    const script = join(mkdtempSync(join(tmpdir(), 'trawl-completion-')), 'trawl.bash');
    writeFileSync(script, stdout);
    // Run the function as bash would on 'trawl cra<TAB>' and 'trawl crawl --max<TAB>'.
    const complete = (words: string) =>
      execFileSync('bash', [
        '-c',
        `source ${script}; COMP_WORDS=(${words}); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); _trawl; echo "\${COMPREPLY[*]}"`,
      ])
        .toString()
        .trim();
    expect(complete('trawl cra')).toBe('crawl');
    expect(complete('trawl crawl --max')).toBe('--max-depth --max-age');
    expect(complete('trawl doc')).toBe('doctor');
  });

  it('writes a zsh script naming every command, and refuses another shell', async () => {
    const { stdout } = await completion('zsh');
    expect(stdout.startsWith('#compdef trawl\n')).toBe(true);
    expect(stdout).toContain("'monitor:Create");
    expect((await completion('fish')).code).toBe(2);
  });
});
