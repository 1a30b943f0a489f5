/**
 * "Copy as": the request the playground just made, as a curl command, JavaScript with the
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

/** The three snippets of `POST {apiUrl}/v2/{endpoint}` for `url` with `options`. */
export function snippets(
  apiUrl: string,
  url: string,
  options: RequestOptions,
  keyless: boolean,
): Record<'curl' | 'JavaScript' | 'Python', string> {
  const auth = keyless ? '' : ` \\\n  -H "Authorization: Bearer $FIRECRAWL_API_KEY"`;
  const curl = `curl -s -X POST ${shellQuote(`${apiUrl}/v2/scrape`)}${auth} \\\n  -H 'Content-Type: application/json' \\\n  -d ${shellQuote(json({ url, ...options }))}`;

  const jsKey = keyless ? '' : ', apiKey: process.env.FIRECRAWL_API_KEY';
  const javascript = [
    "import Firecrawl from '@mendable/firecrawl-js';",
    '',
    `const firecrawl = new Firecrawl({ apiUrl: ${JSON.stringify(apiUrl)}${jsKey} });`,
    `const doc = await firecrawl.scrape(${JSON.stringify(url)}, ${json(options)});`,
    'console.log(doc.markdown);',
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
    'doc = firecrawl.scrape(',
    `    ${JSON.stringify(url)},`,
    ...keywords,
    ')',
    'print(doc.markdown)',
    '',
  ].join('\n');
  return { curl, JavaScript: javascript, Python: py };
}
