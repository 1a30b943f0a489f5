/**
 * A `<pre>` block as an mdast code block, its language read from the usual class names
 * (`language-ts`, `lang-js`, `highlight-source-python` …) and never from words that only look
 * like one.
 */
import type { Code } from 'mdast';
import { isTag, type Element } from './dom.ts';
import { textOf } from './mdast-whitespace.ts';

const languageClass =
  /(?:^|\s)(?:(?:language|lang|highlight(?:-source)?|hljs)-|brush:\s*)([a-z0-9_+#.-]+)/i;
const notLanguages = new Set([
  'source',
  'none',
  'text',
  'plain',
  'plaintext',
  'default',
  'hljs',
  'js-code',
  'code',
  'notranslate',
]);

export function codeBlockOf(pre: Element): Code {
  const value = textOf(pre).replace(/^\n/, '').replace(/\n$/, '');
  const lang = codeLanguage(pre);
  return { type: 'code', lang: lang ?? null, meta: null, value };
}

/**
 * The code language, wherever the site put it: on <pre> or <code>, as data-lang, or on a wrapper
 * (`highlight-python` in Sphinx, `language-js` on a Prism wrapper div).
 */
function codeLanguage(pre: Element): string | undefined {
  const code = pre.children.find(
    (child): child is Element => isTag(child) && child.name === 'code',
  );
  const candidates: (Element | undefined)[] = [
    pre,
    code,
    pre.parent as Element | undefined,
    pre.parent?.parent as Element | undefined,
  ];
  for (const candidate of candidates) {
    if (!candidate || !isTag(candidate)) continue;
    const language = languageOf(candidate);
    if (language) return language;
  }
  return undefined;
}

function languageOf(element: Element): string | undefined {
  const data = element.attribs['data-lang'] ?? element.attribs['data-language'];
  if (data && !notLanguages.has(data.toLowerCase())) return data.toLowerCase();
  const cls = element.attribs['class'];
  if (!cls) return undefined;
  const language = languageClass.exec(cls)?.[1]?.toLowerCase();
  return language && !notLanguages.has(language) ? language : undefined;
}
