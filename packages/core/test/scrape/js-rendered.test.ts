/**
 * The JS-shell check (scrape/js-rendered.ts) reads a page with content only until it has seen
 * enough text; these pin that the decision is the one the full count makes.
 */
import { describe, expect, it } from 'vitest';
import { looksJsRendered } from '../../src/scrape/js-rendered.js';

const script = '<script src="/app.js"></script>';
const prose = 'A paragraph a reader came for, with enough words to count as content. ';

describe('looksJsRendered', () => {
  it('takes a page with plenty of visible text for served content', () => {
    const html = `<html><body><div id="root"></div>${script}<p>${prose.repeat(10)}</p></body></html>`;
    expect(looksJsRendered(html)).toBe(false);
  });

  it('takes an empty app root with a script for a shell, however long its scripts', () => {
    const html = `<html><body><div id="root"></div><script>${'var x = 1;'.repeat(5000)}</script>${script}</body></html>`;
    expect(looksJsRendered(html)).toBe(true);
  });

  it('does not count text inside scripts, styles or comments', () => {
    const hidden = `<script>${prose.repeat(10)}</script><style>${prose.repeat(10)}</style><!-- ${prose.repeat(10)} -->`;
    const html = `<html><body><div id="app"></div>${hidden}</body></html>`;
    expect(looksJsRendered(html)).toBe(true);
  });

  it('counts an entity as one space, not as its letters', () => {
    const spaces = '&nbsp;'.repeat(400);
    const html = `<html><body><div id="root"></div><p>${spaces}</p>${script}</body></html>`;
    expect(looksJsRendered(html)).toBe(true);
  });

  it('finds the script of a shell in the head, or written in capitals', () => {
    const head = `<html><head>${script}</head><body><div id="root"></div></body></html>`;
    expect(looksJsRendered(head)).toBe(true);
    const capitals =
      '<HTML><BODY><DIV ID="root"></DIV><SCRIPT SRC="/app.js"></SCRIPT></BODY></HTML>';
    expect(looksJsRendered(capitals)).toBe(true);
  });

  it('leaves a page without scripts alone', () => {
    expect(looksJsRendered('<html><body><div id="root"></div></body></html>')).toBe(false);
  });
});
