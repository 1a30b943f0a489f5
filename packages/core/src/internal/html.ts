/**
 * Text made safe for HTML element content and double-quoted attribute values. One escape for
 * every place that writes HTML: documents turned into HTML for conversion, e-mail digests.
 */
const entities: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
};

/** `text` with `&`, `<`, `>` and `"` written as entities. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"]/g, (c) => entities[c] ?? c);
