/**
 * The `branding` format: a site's visual identity read from the computed styles of the rendered
 * page (colors, fonts, typography, spacing, buttons and inputs, logo and icons), in the shape of
 * the hosted service's BrandingProfile (api-v2.md, "Parsed document"; the SDK's types).
 *
 * Everything is measured, nothing guessed by a model: the primary color is the background of the
 * most prominent button, the text colors those of body text, the heading font that of the first
 * heading, and so on. What a page does not show is left out.
 */
import type { Page } from 'playwright-core';

// The slice of the DOM the in-page function reads. Core does not compile against the DOM
// library (it would retype Node's timers and URL for all of core), so it is declared here.
interface Box {
  width: number;
  height: number;
}
interface PageStyle {
  readonly backgroundColor: string;
  readonly color: string;
  readonly fontFamily: string;
  readonly fontSize: string;
  readonly lineHeight: string;
  readonly fontWeight: string;
  readonly visibility: string;
  readonly display: string;
  readonly paddingTop: string;
  readonly paddingRight: string;
  readonly paddingBottom: string;
  readonly paddingLeft: string;
  readonly marginTop: string;
  readonly marginRight: string;
  readonly marginBottom: string;
  readonly marginLeft: string;
  readonly borderRadius: string;
  readonly borderTopColor: string;
  readonly maxWidth: string;
  readonly transitionDuration: string;
  readonly transitionTimingFunction: string;
}
interface PageElement {
  readonly tagName: string;
  readonly textContent: string | null;
  readonly outerHTML: string;
  /** Set on images: the source the browser chose. */
  readonly currentSrc?: string;
  getBoundingClientRect(): Box;
  getAttribute(name: string): string | null;
  closest(selector: string): PageElement | null;
}
interface PageDocument {
  readonly body: PageElement;
  readonly documentElement: PageElement;
  readonly baseURI: string;
  readonly title: string;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): Iterable<PageElement>;
}
declare const document: PageDocument;
declare function getComputedStyle(element: PageElement): PageStyle;

/**
 * Runs in the page. Kept free of imports and helpers from outside its body: Playwright sends its
 * source text to the browser.
 */
function readBranding(): Record<string, unknown> {
  const rgbToHex = (value: string | null | undefined): string | undefined => {
    const match = /rgba?\((\d+),\s*(\d+),\s*(\d+)(?:,\s*([\d.]+))?\)/.exec(value ?? '');
    if (!match) return undefined;
    if (match[4] !== undefined && Number(match[4]) < 0.1) return undefined;
    return `#${[match[1], match[2], match[3]]
      .map((part) => Number(part).toString(16).padStart(2, '0'))
      .join('')
      .toUpperCase()}`;
  };
  const luminance = (hex: string): number => {
    const [r, g, b] = [1, 3, 5].map((start) => parseInt(hex.slice(start, start + 2), 16) / 255);
    return 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0);
  };
  const isVisible = (element: PageElement): boolean => {
    const box = element.getBoundingClientRect();
    const style = getComputedStyle(element);
    return (
      box.width > 0 && box.height > 0 && style.visibility !== 'hidden' && style.display !== 'none'
    );
  };
  const firstFamily = (stack: string): string =>
    (stack.split(',')[0] ?? '').trim().replace(/^["']|["']$/g, '');
  const px = (value: string): number | undefined => {
    const number = parseFloat(value);
    return Number.isFinite(number) ? number : undefined;
  };
  const absolute = (href: string | null | undefined): string | undefined => {
    if (!href) return undefined;
    try {
      return new URL(href, document.baseURI).href;
    } catch {
      return undefined;
    }
  };

  const bodyStyle = getComputedStyle(document.body);
  // The page's background: the body's, else the root's, else white (the canvas default).
  const background =
    rgbToHex(bodyStyle.backgroundColor) ??
    rgbToHex(getComputedStyle(document.documentElement).backgroundColor) ??
    '#FFFFFF';
  const textElement = [...document.querySelectorAll('p, li, td')].find(
    (element) => isVisible(element) && (element.textContent ?? '').trim().length > 20,
  );
  const textStyle = textElement ? getComputedStyle(textElement) : bodyStyle;
  const textPrimary = rgbToHex(textStyle.color);
  const heading = [...document.querySelectorAll('h1, h2, h3')].find(isVisible);
  const headingStyle = heading ? getComputedStyle(heading) : undefined;
  const link = [...document.querySelectorAll('a[href]')].find(
    (element) =>
      isVisible(element) &&
      !element.closest('nav, header, footer') &&
      (element.textContent ?? '').trim() !== '',
  );
  const code = document.querySelector('code, pre, kbd');

  // Buttons: real buttons and links styled as buttons, ranked by how much a visitor sees them.
  const buttons = [
    ...document.querySelectorAll(
      'button, [role="button"], a.button, a.btn, a[class*="button"], a[class*="btn"], input[type="submit"]',
    ),
  ]
    .filter(isVisible)
    .map((element) => {
      const style = getComputedStyle(element);
      const box = element.getBoundingClientRect();
      return { style, area: box.width * box.height, filled: rgbToHex(style.backgroundColor) };
    });
  const filled = buttons
    .filter((button) => button.filled && button.filled !== background)
    .sort((a, b) => b.area - a.area);
  const outlined = buttons.filter((button) => !button.filled || button.filled === background);
  const primaryButton = filled[0];
  const secondaryButton =
    filled.find((button) => button.filled !== primaryButton?.filled) ?? outlined[0];
  const input = [
    ...document.querySelectorAll(
      'input:not([type="hidden"]):not([type="submit"]), textarea, select',
    ),
  ].find(isVisible);
  const inputStyle = input ? getComputedStyle(input) : undefined;

  const colors: Record<string, string> = {};
  const primary =
    primaryButton?.filled ?? (link ? rgbToHex(getComputedStyle(link).color) : undefined);
  if (primary) colors.primary = primary;
  if (secondaryButton?.filled && secondaryButton.filled !== primary)
    colors.secondary = secondaryButton.filled;
  const accent = link ? rgbToHex(getComputedStyle(link).color) : undefined;
  if (accent && accent !== primary) colors.accent = accent;
  colors.background = background;
  if (textPrimary) colors.textPrimary = textPrimary;
  const muted = [
    ...document.querySelectorAll('small, figcaption, time, .muted, .meta, [class*="secondary"]'),
  ].find(isVisible);
  const textSecondary = muted ? rgbToHex(getComputedStyle(muted).color) : undefined;
  if (textSecondary && textSecondary !== textPrimary) colors.textSecondary = textSecondary;
  if (link) colors.link = rgbToHex(getComputedStyle(link).color) ?? '';
  for (const [name, selector] of [
    ['success', '.success, .alert-success, [class*="success"]'],
    ['warning', '.warning, .alert-warning, [class*="warning"]'],
    ['error', '.error, .alert-danger, .alert-error, [class*="error"], [class*="danger"]'],
  ] as const) {
    const element = [...document.querySelectorAll(selector)].find(isVisible);
    const color = element
      ? (rgbToHex(getComputedStyle(element).backgroundColor) ??
        rgbToHex(getComputedStyle(element).color))
      : undefined;
    if (color) colors[name] = color;
  }
  for (const key of Object.keys(colors)) if (!colors[key]) delete colors[key];

  const primaryFamily = firstFamily(textStyle.fontFamily);
  const headingFamily = headingStyle ? firstFamily(headingStyle.fontFamily) : primaryFamily;
  const codeFamily = code ? firstFamily(getComputedStyle(code).fontFamily) : undefined;
  const families = [
    ...new Set(
      [primaryFamily, headingFamily, codeFamily].filter((family): family is string => !!family),
    ),
  ];

  const fontSizes: Record<string, string> = { body: textStyle.fontSize };
  for (const level of ['h1', 'h2', 'h3']) {
    const element = document.querySelector(level);
    if (element) fontSizes[level] = getComputedStyle(element).fontSize;
  }
  // Weights seen on the page, lightest to boldest.
  const weights = [
    ...new Set(
      [...document.querySelectorAll('body *')]
        .slice(0, 2000)
        .filter((element) => (element.textContent ?? '').trim() !== '')
        .map((element) => Number(getComputedStyle(element).fontWeight))
        .filter((weight) => Number.isFinite(weight)),
    ),
  ].sort((a, b) => a - b);
  const fontWeights: Record<string, number> = {};
  if (weights.length > 0) {
    fontWeights.regular = weights.includes(400) ? 400 : (weights[0] ?? 400);
    const bold = weights.filter((weight) => weight >= 600);
    if (bold.length > 0) fontWeights.bold = bold[bold.length - 1] ?? 700;
    const light = weights.filter((weight) => weight < 400);
    if (light.length > 0) fontWeights.light = light[0] ?? 300;
    const medium = weights.filter((weight) => weight > 400 && weight < 600);
    if (medium.length > 0) fontWeights.medium = medium[0] ?? 500;
  }
  const lineHeightRatio = (style: PageStyle): number | undefined => {
    const lineHeight = px(style.lineHeight);
    const size = px(style.fontSize);
    return lineHeight && size ? Math.round((lineHeight / size) * 100) / 100 : undefined;
  };
  const lineHeights: Record<string, number> = {};
  const bodyLineHeight = lineHeightRatio(textStyle);
  if (bodyLineHeight) lineHeights.body = bodyLineHeight;
  const headingLineHeight = headingStyle ? lineHeightRatio(headingStyle) : undefined;
  if (headingLineHeight) lineHeights.heading = headingLineHeight;

  // Spacing: the paddings and margins the layout uses, and the unit they are multiples of.
  const spacingSamples = [
    ...document.querySelectorAll('main, section, article, header, footer, nav, p, button, li'),
  ]
    .filter(isVisible)
    .slice(0, 300)
    .flatMap((element) => {
      const style = getComputedStyle(element);
      return [style.paddingTop, style.paddingLeft, style.marginTop, style.marginBottom].map(
        (value) => px(value) ?? 0,
      );
    })
    .filter((value) => value > 0);
  const baseUnit = [8, 4, 6, 5].find(
    (unit) =>
      spacingSamples.length > 0 &&
      spacingSamples.filter((value) => value % unit === 0).length / spacingSamples.length >= 0.6,
  );
  const section = document.querySelector('main, section, article');
  const spacing: Record<string, unknown> = {};
  if (baseUnit) spacing.baseUnit = baseUnit;
  if (primaryButton) spacing.borderRadius = primaryButton.style.borderRadius;
  if (section) {
    const style = getComputedStyle(section);
    spacing.padding = {
      top: px(style.paddingTop) ?? 0,
      right: px(style.paddingRight) ?? 0,
      bottom: px(style.paddingBottom) ?? 0,
      left: px(style.paddingLeft) ?? 0,
    };
    spacing.margins = {
      top: px(style.marginTop) ?? 0,
      right: px(style.marginRight) ?? 0,
      bottom: px(style.marginBottom) ?? 0,
      left: px(style.marginLeft) ?? 0,
    };
  }

  const components: Record<string, unknown> = {};
  if (primaryButton) {
    components.buttonPrimary = {
      background: primaryButton.filled,
      textColor: rgbToHex(primaryButton.style.color),
      borderRadius: primaryButton.style.borderRadius,
    };
  }
  if (secondaryButton) {
    components.buttonSecondary = {
      background: secondaryButton.filled ?? 'transparent',
      textColor: rgbToHex(secondaryButton.style.color),
      borderColor: rgbToHex(secondaryButton.style.borderTopColor),
      borderRadius: secondaryButton.style.borderRadius,
    };
  }
  if (inputStyle) {
    components.input = {
      borderColor: rgbToHex(inputStyle.borderTopColor),
      borderRadius: inputStyle.borderRadius,
      background: rgbToHex(inputStyle.backgroundColor),
    };
  }

  // Logo: an image in the header (or anything marked as the logo), else the site's icon.
  const logoElement =
    document.querySelector(
      'header img, [class*="logo"] img, img[class*="logo"], img[alt*="logo" i], [id*="logo"] img, img[id*="logo"]',
    ) ?? document.querySelector('header svg, [class*="logo"] svg');
  let logo: string | undefined;
  if (logoElement?.tagName === 'IMG')
    logo = absolute(logoElement.currentSrc || logoElement.getAttribute('src'));
  else if (logoElement)
    logo = `data:image/svg+xml;utf8,${encodeURIComponent(logoElement.outerHTML)}`;
  const favicon = absolute(
    document
      .querySelector('link[rel~="icon"], link[rel="apple-touch-icon"]')
      ?.getAttribute('href') ?? '/favicon.ico',
  );
  const ogImage = absolute(
    document
      .querySelector('meta[property="og:image"], meta[name="og:image"]')
      ?.getAttribute('content'),
  );
  const images: Record<string, string | null> = {
    logo: logo ?? null,
    favicon: favicon ?? null,
    ogImage: ogImage ?? null,
  };

  const transitioned = [...document.querySelectorAll('a, button')]
    .map((element) => getComputedStyle(element))
    .find((style) => style.transitionDuration && style.transitionDuration !== '0s');
  const headerElement = document.querySelector('header');
  const footerElement = document.querySelector('footer');
  const layout: Record<string, unknown> = {};
  if (headerElement)
    layout.headerHeight = `${Math.round(headerElement.getBoundingClientRect().height)}px`;
  if (footerElement)
    layout.footerHeight = `${Math.round(footerElement.getBoundingClientRect().height)}px`;
  const container = section ? getComputedStyle(section).maxWidth : 'none';
  if (container && container !== 'none') layout.grid = { maxWidth: container };

  const title =
    document.querySelector('meta[property="og:site_name"]')?.getAttribute('content') ??
    document.title.split(/\s[|–—-]\s/).pop();
  return {
    colorScheme: luminance(background) < 0.4 ? 'dark' : 'light',
    ...(title ? { brandName: title.trim() } : {}),
    logo: logo ?? null,
    fonts: families.map((family) => ({ family })),
    colors,
    typography: {
      fontFamilies: {
        primary: primaryFamily,
        heading: headingFamily,
        ...(codeFamily ? { code: codeFamily } : {}),
      },
      fontSizes,
      fontWeights,
      lineHeights,
    },
    spacing,
    components,
    images,
    ...(transitioned
      ? {
          animations: {
            transitionDuration: transitioned.transitionDuration,
            easing: transitioned.transitionTimingFunction,
          },
        }
      : {}),
    layout,
  };
}

/** The brand identity of the page as rendered now. */
export async function extractBranding(page: Page): Promise<Record<string, unknown>> {
  return page.evaluate(readBranding);
}
