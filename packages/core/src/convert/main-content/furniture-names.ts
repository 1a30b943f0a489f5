/**
 * Furniture by class or id: the words that name a block as boilerplate (`site-footer`,
 * `share-buttons`, `navBreadcrumbs`).
 */
import type { Element } from '../dom.ts';

// Furniture by class or id, in two strengths. Strong words mark furniture wherever they stand in
// a class name (`site-footer`, `share-buttons`, `cookie-banner`); weak words only as a whole class
// token, because as part of a name they often label content (`posting-categories`, `toc-entry`).
const strongWords = [
  'cookies?',
  'consent',
  'gdpr',
  'newsletter',
  'subscribe',
  'subscription',
  'signup',
  'sign-up',
  'share',
  'sharing',
  'sharethis',
  'sharedaddy',
  'shariff',
  'social',
  'related',
  'relatedposts',
  'recommended',
  'recommendations',
  'more-stories',
  'most-popular',
  'most-read',
  'trending',
  'promo',
  'promotion',
  'sponsor',
  'sponsored',
  'breadcrumbs?',
  'sidebar',
  'side-bar',
  'widget-area',
  'skip-link',
  'skip-to-content',
  'skiplink',
  'navbar',
  'nav',
  'navigation',
  'menu',
  'mega-menu',
  'masthead',
  'site-header',
  'site-footer',
  'global-header',
  'global-footer',
  'page-footer',
  'footer',
  'comments',
  'commentlist',
  'comment-section',
  'comments-area',
  'comment-list',
  'comment-respond',
  'disqus_thread',
  'disqus',
  'author-bio',
  'byline',
  'tagline',
  'entry-meta',
  'post-meta',
  'article-meta',
  'flat-list',
  'signature',
  'postprofile',
  'poster-info',
  'user-info',
  'userinfo',
  // A forum poster's badge, title and counters (XenForo's `message-userExtras`: joined, messages,
  // reaction score) beside each post: the name and date stay, the profile goes.
  'user-extras',
  'user-title',
  'user-banner',
  'user-stats',
  'author-box',
  'about-author',
  'pagination',
  'post-navigation',
  'outbrain',
  'taboola',
  'sr-only',
  'visually-hidden',
  'screen-reader-text',
  'print-only',
  'edit-this-page',
  'app-promo',
  'donate',
  'donation',
  'donations',
  // WordPress's card for a link to another post, not a quote from it.
  'wp-embedded-content',
  'download-app',
];
const weakWords = [
  'popular',
  'author',
  'buttons',
  'score',
  'expand',
  'widget',
  'widgets',
  'respond',
  'pager',
  'toolbar',
  'modal',
  'popup',
  'overlay',
  'banner',
  'toc',
  'table-of-contents',
  'edit-link',
  'feedback',
  'rating-widget',
  'tags',
  'tag-list',
  'post-tags',
  'meta-tags',
  'categories',
  'post-categories',
];
const strongPattern = new RegExp(`(?:^|[\\s_-])(?:${strongWords.join('|')})(?:$|[\\s_-]|\\d)`);
const weakPattern = new RegExp(`(?:^|\\s)(?:${weakWords.join('|')})(?:$|\\s)`);

/** True when the id and class words (from `furnitureNames`) name furniture. */
export function isFurnitureName(names: string): boolean {
  return strongPattern.test(names) || weakPattern.test(names);
}

/**
 * True when the names say furniture by a strong word (`related-posts`, `comments-area`), not
 * by a weak one alone (Blogger's `widget Blog` holds the posts).
 */
export function isStrongFurnitureName(names: string): boolean {
  return strongPattern.test(names);
}

/**
 * The id and class words, with camelCase names split as hyphenated ones: `navBreadcrumbs` and
 * `sectionRelated` say the same as `nav-breadcrumbs` and `section-related`.
 */
export function furnitureNames(element: Element): string {
  const id = element.attribs['id'];
  const cls = element.attribs['class'];
  if (!id && !cls) return '';
  return `${id ?? ''} ${cls ?? ''}`.replace(/([a-z\d])([A-Z])/g, '$1-$2').toLowerCase();
}
