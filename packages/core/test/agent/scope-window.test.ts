/**
 * Two rules of the agent on their own: which URLs a constrained run may read
 * (`strictConstrainToURLs`: the given URLs and the pages under their paths, at a `/` boundary),
 * and how the conversation sent to the model is cut to its context (the oldest tool results
 * shortened first, the newest kept whole), and the source fields found in a schema.
 */
import { describe, expect, it } from 'vitest';
import type { LlmToolMessage } from '@trawl/core';
import { UrlScope } from '../../src/agent/scope.js';
import { sourceFieldsOf, uncitedSources } from '../../src/agent/sources.js';
import { estimateConversationTokens, fitToContext } from '../../src/agent/window.js';

describe('UrlScope', () => {
  const scope = new UrlScope(['https://shop.example/catalog/', 'https://shop.example/about']);

  it.each([
    ['https://shop.example/catalog/', true],
    ['https://shop.example/catalog/shoes/trail.html', true],
    ['https://shop.example/about', true],
    ['https://shop.example/about/team', true],
    ['https://shop.example/aboutus', false],
    ['https://shop.example/catalogue/', false],
    ['https://shop.example/', false],
    ['http://shop.example/catalog/', false],
    ['https://evil.example/catalog/', false],
    ['https://shop.example:8443/catalog/', false],
    ['not a url', false],
  ])('decides %s: %s', (url, allowed) => {
    expect(scope.allows(url)).toBe(allowed);
  });

  it('allows everything when the run is not constrained', () => {
    expect(new UrlScope(undefined).allows('https://anywhere.example/')).toBe(true);
  });
});

describe('fitToContext', () => {
  const page = (name: string, size: number): LlmToolMessage => ({
    role: 'tool',
    toolCallId: name,
    name: 'scrape',
    content: `URL: https://site.example/${name}\n${'x'.repeat(size)}`,
  });
  const messages: LlmToolMessage[] = [
    { role: 'system', content: 'rules' },
    { role: 'user', content: 'the task' },
    page('a', 8000),
    page('b', 8000),
    page('c', 8000),
    page('d', 8000),
  ];

  it('sends the conversation as it is when it fits', () => {
    expect(fitToContext(messages, 100_000)).toEqual(messages);
  });

  it('shortens the oldest tool results first and keeps the last two whole', () => {
    const fitted = fitToContext(messages, 7000);
    expect(estimateConversationTokens(fitted)).toBeLessThanOrEqual(7000);
    expect(fitted[2]!.content).toMatch(/^\[Earlier result of scrape, \d+ characters/);
    expect(fitted[2]!.content).toContain('URL: https://site.example/a');
    expect(fitted.slice(-2)).toEqual(messages.slice(-2));
    // The kept state is untouched.
    expect(messages[2]!.content.length).toBeGreaterThan(8000);
  });
});

describe('source fields', () => {
  it('finds the fields that name where a fact came from, at any depth', () => {
    expect(
      sourceFieldsOf({
        type: 'object',
        properties: {
          company: { type: 'string' },
          sources: { type: 'array', items: { type: 'string' } },
          plans: {
            type: 'array',
            items: { type: 'object', properties: { sourceUrl: { type: 'string' } } },
          },
        },
      }),
    ).toEqual(['sources', 'plans[].sourceUrl']);
  });

  it('names cited URLs that were never read', () => {
    const read = new Set(['https://a.example/page']);
    expect(
      uncitedSources(
        { items: [{ source: 'https://a.example/page/' }, { source: 'https://b.example/x' }] },
        read,
      ),
    ).toEqual(['https://b.example/x']);
  });
});
