/** `trawl parse <file>`: a local document (PDF, DOCX, XLSX, HTML …) to markdown on stdout. */
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { maxParseBytes, parse, ValidationError, type ParseOptions } from '@trawl/core';
import { loadConfig } from '../config.ts';
import { parseFlags, UsageError } from './args.ts';
import type { Command } from './index.ts';
import { formatsFrom, quietHelp } from './page-flags.ts';

const outputFormats = ['markdown', 'html', 'json'] as const;
type OutputFormat = (typeof outputFormats)[number];

const usage = `Usage: trawl parse <file> [options]

Converts a document to markdown: PDF, DOCX, XLSX, PPTX, ODT, ODS, ODP, EPUB, HTML, CSV, TSV,
Markdown, JSON, XML or text, and legacy DOC, XLS and PPT through LibreOffice (TRAWL_SOFFICE_PATH,
else the usual install paths). The kind comes from the file's bytes, then its extension.

Options:
  --format <f>           markdown (default), html, or json (the whole document with metadata)
  --max-pages <n>        PDF: read only the first n pages
  --no-main-content      HTML: keep navigation, headers, footers and sidebars
  --include-tags <sel>   HTML: CSS selector to keep (repeat, or comma-separate)
  --exclude-tags <sel>   HTML: CSS selector to remove (repeat, or comma-separate)
  --redact-pii           replace e-mails, phone, card and ID numbers
  --timeout <ms>         time budget (default 60000)
${quietHelp}
  -h, --help             show this help

A warning (scanned pages, pages left out) goes to stderr. The engine settings (TRAWL_* variables
and the TRAWL_CONFIG file) apply as they do to the other commands.

Examples:
  trawl parse report.pdf --max-pages 10
  trawl parse budget.xlsx --format json > budget.json
`;

const list = (values: string[] | undefined) =>
  values?.flatMap((value) => value.split(',').map((part) => part.trim())).filter(Boolean);

function wholeNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw new UsageError(`--${flag} must be a whole number above 0 (got '${value}')`);
  return number;
}

/** The parse command. */
export const parseCommand: Command = {
  usage,
  async run(args, io) {
    const { values, positionals } = parseFlags(args, {
      format: { type: 'string', multiple: true },
      formats: { type: 'string', multiple: true },
      'max-pages': { type: 'string' },
      'main-content': { type: 'boolean', default: true },
      'include-tags': { type: 'string', multiple: true },
      'exclude-tags': { type: 'string', multiple: true },
      'redact-pii': { type: 'boolean' },
      timeout: { type: 'string' },
      quiet: { type: 'boolean', short: 'q' },
    });
    const [path, ...extra] = positionals;
    if (!path || extra.length > 0)
      throw new UsageError(`give exactly one file (got ${positionals.length})`);
    const formats = formatsFrom(values, outputFormats, 'markdown');
    if (formats.length > 1) throw new UsageError('--format takes one of markdown, html, json');
    const format = formats[0] as OutputFormat;
    const size = await stat(path).then(
      (info) => info.size,
      () => {
        throw new ValidationError(`cannot read '${path}': no such file`);
      },
    );
    // Checked before reading, so a huge file is refused without being loaded.
    if (size > maxParseBytes)
      throw new ValidationError(
        `'${path}' is ${Math.round(size / 1024 / 1024)} MB; the limit is ${maxParseBytes / 1024 / 1024} MB`,
      );
    const maxPages = wholeNumber('max-pages', values['max-pages']);
    const timeout = wholeNumber('timeout', values.timeout);
    const includeTags = list(values['include-tags']);
    const excludeTags = list(values['exclude-tags']);
    const options: ParseOptions = {
      filename: basename(path),
      formats: format === 'json' ? ['markdown', 'links', 'images'] : [format],
      onlyMainContent: values['main-content'],
      ...(includeTags ? { includeTags } : {}),
      ...(excludeTags ? { excludeTags } : {}),
      ...(values['redact-pii'] ? { redactPII: true } : {}),
      ...(timeout ? { timeout } : {}),
      ...(maxPages ? { parsers: [{ type: 'pdf' as const, maxPages }] } : {}),
    };
    const config = loadConfig({ role: 'cli', env: io.env });
    const document = await parse(new Uint8Array(await readFile(path)), options, {
      config: config.engine,
    });
    if (format === 'json') io.stdout(`${JSON.stringify(document, null, 2)}\n`);
    else io.stdout(`${document[format] ?? ''}\n`);
    if (document.warning && format !== 'json' && !values.quiet)
      io.stderr(`trawl parse: warning: ${document.warning}\n`);
    return 0;
  },
};
