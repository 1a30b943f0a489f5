/**
 * Scraped markdown as HTML the app may show: marked turns it into HTML, DOMPurify then keeps only
 * inert markup (no script, no event handler attribute, no `javascript:` link, no form, no
 * style). Scraped content is other people's text and is never the app's own code; the page's
 * Content-Security-Policy is the second wall behind this one.
 */
import DOMPurify from 'dompurify';
import { marked } from 'marked';

// Links in scraped content leave the app in a new tab and tell the target nothing.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A' && node.hasAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer nofollow');
  }
});

const purifyOptions = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe'],
  FORBID_ATTR: ['style', 'srcset'],
};

/** Sanitised HTML of `markdown`, safe to put into the page. */
export function renderMarkdown(markdown: string): string {
  const html = marked.parse(markdown, { async: false, gfm: true });
  return DOMPurify.sanitize(html, purifyOptions);
}
