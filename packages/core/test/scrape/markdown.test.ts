/**
 * Golden files for HTML → markdown: each folder under fixtures/ holds input.html, options.json
 * (htmlToDocument options) and expected.md. `UPDATE=1 npm test` rewrites expected.md; review the
 * diff before committing.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { htmlToDocument, type HtmlToDocumentOptions } from '@trawl/core';

const fixtures = join(import.meta.dirname, 'fixtures');

describe('html to markdown golden files', () => {
  for (const name of readdirSync(fixtures)) {
    it(`converts ${name} as expected.md shows`, () => {
      const folder = join(fixtures, name);
      const html = readFileSync(join(folder, 'input.html'), 'utf8');
      const options = JSON.parse(
        readFileSync(join(folder, 'options.json'), 'utf8'),
      ) as HtmlToDocumentOptions;
      const markdown = htmlToDocument(html, options).markdown ?? '';
      const expectedPath = join(folder, 'expected.md');
      if (process.env['UPDATE'] || !existsSync(expectedPath))
        writeFileSync(expectedPath, `${markdown}\n`);
      expect(`${markdown}\n`).toBe(readFileSync(expectedPath, 'utf8'));
    });
  }
});
