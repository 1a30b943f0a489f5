/**
 * "Copy as" code: each snippet makes the request the playground made, against this server, and
 * reads the key from the environment instead of holding it. The JS snippet is run for real by the
 * browser test; here the curl quoting and the Python literals are checked (Python's own parser
 * reads the Python snippet where a python3 is installed).
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { snippets } from '../src/playground/code-snippets.ts';

const options = {
  formats: ['markdown', 'links'],
  onlyMainContent: false,
  location: { country: 'DE', languages: ['de-DE'] },
  actions: [{ type: 'wait', milliseconds: 500 }],
};

const hasPython = (() => {
  try {
    execFileSync('python3', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('snippets', () => {
  const code = snippets(
    'http://127.0.0.1:3002',
    { endpoint: 'scrape', target: "https://example.com/o'clock", options },
    false,
  );

  it('quotes the body for the shell, single quotes included', () => {
    expect(code.curl).toContain("'http://127.0.0.1:3002/v2/scrape'");
    expect(code.curl).toContain('"Authorization: Bearer $FIRECRAWL_API_KEY"');
    const body = /-d '([\s\S]*)'$/.exec(code.curl)?.[1]?.replaceAll(`'\\''`, "'");
    expect(JSON.parse(body ?? '')).toEqual({ url: "https://example.com/o'clock", ...options });
  });

  it('points the JS SDK at this server and reads the key from FIRECRAWL_API_KEY', () => {
    expect(code.JavaScript).toContain(
      'new Firecrawl({ apiUrl: "http://127.0.0.1:3002", apiKey: process.env.FIRECRAWL_API_KEY })',
    );
    expect(code.JavaScript).toContain('"onlyMainContent": false');
  });

  it('gives firecrawl-py its snake_case keywords and Python literals', () => {
    expect(code.Python).toContain('only_main_content=False,');
    expect(code.Python).toContain('api_key=os.environ["FIRECRAWL_API_KEY"]');
    expect(code.Python).toContain('"milliseconds": 500');
  });

  it('calls map and search with their own field and prints what they return', () => {
    const search = snippets(
      'http://127.0.0.1:3002',
      { endpoint: 'search', target: 'pricing', options: { limit: 3 } },
      false,
    );
    expect(search.curl).toContain('"query": "pricing"');
    expect(search.JavaScript).toContain('await firecrawl.search("pricing", {');
    expect(search.Python).toContain('print(result.web)');
    const map = snippets(
      'http://127.0.0.1:3002',
      { endpoint: 'map', target: 'https://example.com', options: {} },
      true,
    );
    expect(map.curl).toContain("'http://127.0.0.1:3002/v2/map'");
    expect(map.JavaScript).toContain('console.log(JSON.stringify(result.links, null, 2));');
  });

  it.skipIf(!hasPython)('writes Python that parses', () => {
    execFileSync('python3', ['-c', 'import ast, sys; ast.parse(sys.stdin.read())'], {
      input: code.Python,
    });
  });

  it('leaves the key out entirely on a keyless server', () => {
    const keyless = snippets(
      'http://127.0.0.1:3002',
      { endpoint: 'scrape', target: 'https://example.com', options },
      true,
    );
    for (const text of Object.values(keyless)) expect(text).not.toMatch(/API_KEY|Authorization/);
  });
});
