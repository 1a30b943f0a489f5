/**
 * "Copy as": the request the playground just made (scrape, map or search), as a curl command, JavaScript with the
 * official JS SDK (`@mendable/firecrawl-js`) and Python with `firecrawl-py`, each pointed at this
 * server. The key is read from FIRECRAWL_API_KEY (the SDKs' own variable), never written into
 * the code, so a pasted snippet leaks nothing.
 */

/** Options exactly as the API takes them (camelCase, JSON values). */
export type RequestOptions = Record<string, unknown>;

const json = (value: unknown, indent = 2) => JSON.stringify(value, null, indent);

/** A value as a Python literal (JSON with True/False/None). */
function python(value: unknown, depth = 1): string {
  const pad = '    '.repeat(depth);
  const close = '    '.repeat(depth - 1);
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (Array.isArray(value))
    return value.length === 0
      ? '[]'
      : `[${value.map((item) => python(item, depth + 1)).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return '{}';
    return `{\n${entries.map(([key, item]) => `${pad}${JSON.stringify(key)}: ${python(item, depth + 1)}`).join(',\n')}\n${close}}`;
  }
  return JSON.stringify(value);
}

/** `onlyMainContent` → `only_main_content`: firecrawl-py's keyword names. */
const snake = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** A call the playground made: the endpoint, its URL or query, and the options beside it. */
export interface SnippetCall {
  endpoint: 'scrape' | 'map' | 'search';
  /** The URL (scrape, map) or the query (search). */
  target: string;
  options: RequestOptions;
}

/** What each endpoint's SDK call returns, and which part of it the snippet prints. */
const printed = {
  scrape: { js: 'doc.markdown', py: 'result.markdown' },
  map: { js: 'JSON.stringify(result.links, null, 2)', py: 'result.links' },
  search: { js: 'JSON.stringify(result.web, null, 2)', py: 'result.web' },
} as const;

/** The three snippets of `POST {apiUrl}/v2/{endpoint}` as `call` made it. */
export function snippets(
  apiUrl: string,
  call: SnippetCall,
  keyless: boolean,
): Record<'curl' | 'JavaScript' | 'Python', string> {
  const { endpoint, target, options } = call;
  const field = endpoint === 'search' ? 'query' : 'url';
  const auth = keyless ? '' : ` \\\n  -H "Authorization: Bearer $FIRECRAWL_API_KEY"`;
  const curl = `curl -s -X POST ${shellQuote(`${apiUrl}/v2/${endpoint}`)}${auth} \\\n  -H 'Content-Type: application/json' \\\n  -d ${shellQuote(json({ [field]: target, ...options }))}`;

  const jsKey = keyless ? '' : ', apiKey: process.env.FIRECRAWL_API_KEY';
  const jsResult = endpoint === 'scrape' ? 'doc' : 'result';
  const javascript = [
    "import Firecrawl from '@mendable/firecrawl-js';",
    '',
    `const firecrawl = new Firecrawl({ apiUrl: ${JSON.stringify(apiUrl)}${jsKey} });`,
    `const ${jsResult} = await firecrawl.${endpoint}(${JSON.stringify(target)}, ${json(options)});`,
    `console.log(${printed[endpoint].js});`,
    '',
  ].join('\n');

  const pyKey = keyless ? '' : ', api_key=os.environ["FIRECRAWL_API_KEY"]';
  const keywords = Object.entries(options).map(
    ([name, value]) => `    ${snake(name)}=${python(value, 2)},`,
  );
  const py = [
    ...(keyless ? [] : ['import os', '']),
    'from firecrawl import Firecrawl',
    '',
    `firecrawl = Firecrawl(api_url=${JSON.stringify(apiUrl)}${pyKey})`,
    `result = firecrawl.${endpoint}(`,
    `    ${JSON.stringify(target)},`,
    ...keywords,
    ')',
    `print(${printed[endpoint].py})`,
    '',
  ].join('\n');
  return { curl, JavaScript: javascript, Python: py };
}
