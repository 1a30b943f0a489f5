/**
 * The shape of the house: the folders of packages/core/src import one another without
 * a cycle (each concept sits on the ones below it), no source file grows past 500 lines, and no
 * block of six lines is written twice.
 * Type-only imports are left out of the graph: they vanish at run time and cannot form a cycle
 * of module evaluation.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repeatedBlocks } from './repeated-blocks.ts';
import { repositoryRoot, sourceFiles } from './source-files.ts';

const coreSrc = join(import.meta.dirname, '../../packages/core/src');

/** The folder (or root file) of core a path belongs to. */
const unitOf = (path: string) => relative(coreSrc, path).split(sep)[0] ?? '';

/** Folder → folders it imports at run time. */
function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  const importPattern = /(?:^|\n)\s*(?:import|export)(?!\s+type\b)[^;]*?from\s+'(\.[^']+)'/g;
  for (const path of sourceFiles().filter((file) => file.startsWith(coreSrc))) {
    const from = unitOf(path);
    // The entry points gather everything; they are not part of any concept.
    if (from === 'index.ts' || from === 'server.ts') continue;
    for (const match of readFileSync(path, 'utf8').matchAll(importPattern)) {
      const to = unitOf(resolve(dirname(path), match[1] ?? ''));
      if (to === from) continue;
      if (!graph.has(from)) graph.set(from, new Set());
      graph.get(from)?.add(to);
    }
  }
  return graph;
}

/** A cycle of the graph as a path `a → b → a`, or undefined when there is none. */
function findCycle(graph: Map<string, Set<string>>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') return [...stack.slice(stack.indexOf(next)), next];
      if (!state.has(next)) {
        const cycle = visit(next);
        if (cycle) return cycle;
      }
    }
    stack.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    if (state.has(node)) continue;
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('the house', () => {
  it('finds a cycle where there is one (the check below can fail)', () => {
    const graph = new Map([
      ['scrape', new Set(['parse'])],
      ['parse', new Set(['scrape'])],
    ]);
    expect(findCycle(graph)).toEqual(['scrape', 'parse', 'scrape']);
  });

  it('has no import cycle between the folders of packages/core/src', () => {
    const graph = folderGraph();
    expect(graph.get('scrape')?.size).toBeGreaterThan(0);
    expect(findCycle(graph)?.join(' → ')).toBeUndefined();
  });

  it('has no source file in packages/ over 500 lines', () => {
    const tooLong = sourceFiles()
      .map((path) => ({ path, lines: readFileSync(path, 'utf8').split('\n').length }))
      .filter((file) => file.lines > 500)
      .map((file) => `${relative(repositoryRoot, file.path)}: ${file.lines} lines`);
    expect(tooLong).toEqual([]);
  });

  it('finds a block written twice where there is one (the check below can fail)', () => {
    const block = ['const a = read(x);', 'const b = a + 1;', 'if (b > 2) {', '  log(b);', '}'];
    const body = [...block, 'write(a, b);', 'return b + offset;'].join('\n');
    const found = repeatedBlocks([
      { name: 'one.ts', text: body },
      { name: 'two.ts', text: `// other\n${body}` },
    ]);
    expect(found.map((block) => `${block.first} ~ ${block.again}`)).toEqual([
      'one.ts:1 ~ two.ts:2',
    ]);
  });

  it('has no block of six or more lines written twice in packages/*/src', () => {
    const files = sourceFiles().map((path) => ({
      name: relative(repositoryRoot, path),
      text: readFileSync(path, 'utf8'),
    }));
    const repeated = repeatedBlocks(files).map(
      (block) => `${block.first} ~ ${block.again}:\n  ${block.lines.join('\n  ')}`,
    );
    expect(repeated).toEqual([]);
  });
});
