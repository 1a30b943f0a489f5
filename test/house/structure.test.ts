/**
 * The shape of the house (issue 16): no source file grows past 500 lines.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot, sourceFiles } from './source-files.ts';

describe('the house', () => {
  it('has no source file in packages/ over 500 lines', () => {
    const tooLong = sourceFiles()
      .map((path) => ({ path, lines: readFileSync(path, 'utf8').split('\n').length }))
      .filter((file) => file.lines > 500)
      .map((file) => `${relative(repositoryRoot, file.path)}: ${file.lines} lines`);
    expect(tooLong).toEqual([]);
  });
});
