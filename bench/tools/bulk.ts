// Expands `<!--bulk:KIND key=value ...-->` markers in corpus pages into the bulky, invisible parts
// real pages carry (minified bundles, CSS, SVG sprites, JSON state, data-URI placeholders), so the
// hand-written pages reach realistic sizes without hand-writing megabytes of noise. Visible text is
// never generated here. Output is deterministic (seeded by slug and marker position) and markers are
// replaced in place, so running the tool twice is a no-op.
//
//   npm run env -- node --conditions=development bench/tools/bulk.ts [slug ...]

import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const corpusDir = join(import.meta.dirname, '..', 'corpus');

type Rng = () => number;

function seeded(seedText: string): Rng {
  // FNV-1a to seed mulberry32: tiny, deterministic, good enough for noise.
  let h = 2166136261;
  for (let i = 0; i < seedText.length; i++) {
    h ^= seedText.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const int = (r: Rng, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;

const WORDS: readonly string[] = (
  'menu toggle consent banner header footer modal dialog carousel slide track event ' +
  'analytics session user cart price variant image lazy observer intersect scroll ' +
  'sticky nav drawer search query result item list grid card media video player ad ' +
  'slot bid render hydrate state store reducer action dispatch payload config ' +
  'locale theme dark color font load ready mount unmount effect ref node element ' +
  'attr class style width height offset resize debounce throttle timer retry fetch ' +
  'request response cache token cookie storage key value index form input submit ' +
  'valid error message toast tooltip popover tab panel accordion expand collapse ' +
  'share social comment reply vote rating'
).split(' ');

const UI_STRINGS: readonly string[] = (
  'Close|Accept all|Reject all|Manage preferences|Load more|Show less|Subscribe|' +
  'Sign in|Something went wrong|Try again|Copied!|Share|Menu|Search|Next|Previous|' +
  'Add to cart|Loading…|Open navigation|Dismiss|Save|Cancel'
).split('|');

function ident(r: Rng, parts = 2): string {
  let s = pick(r, WORDS);
  for (let i = 1; i < parts; i++) {
    const w = pick(r, WORDS);
    s += w[0]!.toUpperCase() + w.slice(1);
  }
  return s;
}

function kebab(r: Rng, parts = 2): string {
  const xs: string[] = [];
  for (let i = 0; i < parts; i++) xs.push(pick(r, WORDS));
  return xs.join('-');
}

const short = (r: Rng): string =>
  pick(r, 'abcdefghijklmnopqrstuvwxyz'.split('')) +
  (r() < 0.3 ? pick(r, ['', '0', '1', 'e', 't']) : '');

function jsStatement(r: Rng): string {
  const a = short(r);
  const b = short(r);
  const c = short(r);
  switch (int(r, 0, 11)) {
    case 0:
      return `${int(r, 100, 99999)}:function(${a},${b},${c}){"use strict";${c}.d(${b},{${pick(r, ['A', 'Z', 'default', 'Ay'])}:function(){return ${short(r)}}});var ${short(r)}=${c}(${int(r, 1000, 9999)}),${short(r)}=${c}(${int(r, 1000, 9999)});`;
    case 1:
      return `function ${short(r)}(${a}){var ${b}=${a}.${ident(r)},${c}=void 0===${b}?${pick(r, ['[]', '{}', '!1', '""', 'null'])}:${b};return(0,${short(r)}.jsx)("${pick(r, ['div', 'span', 'button', 'ul', 'li', 'a', 'section'])}",{className:"${kebab(r)}__${pick(r, WORDS)}",children:${c}})}`;
    case 2:
      return `${a}.addEventListener("${pick(r, ['click', 'scroll', 'resize', 'keydown', 'load', 'focusin', 'mouseenter'])}",function(${b}){${b}.preventDefault(),${short(r)}.${ident(r)}(${b}.target.closest("[data-${kebab(r)}]"))},{passive:!0});`;
    case 3:
      return `var ${a}=${JSON.stringify({ [ident(r)]: int(r, 0, 5000), [ident(r)]: pick(r, UI_STRINGS), [ident(r)]: r() < 0.5 })};`;
    case 4:
      return `if(!${a}||"object"!=typeof ${a})throw new TypeError("${pick(r, ['Invalid', 'Missing', 'Unexpected'])} ${ident(r)}: expected object");`;
    case 5:
      return `${a}.prototype.${ident(r)}=function(){var ${b}=this;return new Promise(function(${c}){setTimeout(function(){${b}.${ident(r)}=!0,${c}(${b})},${int(r, 0, 800)})})};`;
    case 6:
      return `fetch("/api/v${int(r, 1, 3)}/${kebab(r)}?${pick(r, WORDS)}="+encodeURIComponent(${a})).then(function(${b}){return ${b}.json()}).then(function(${c}){${short(r)}(${c}.${ident(r)}||[])}).catch(function(){});`;
    case 7:
      return `document.querySelectorAll(".${kebab(r)}__${pick(r, WORDS)}").forEach(function(${a},${b}){${a}.setAttribute("aria-${pick(r, ['expanded', 'hidden', 'label', 'selected'])}",${b}===0?"true":"false")});`;
    case 8:
      return `${a}=Object.assign({},${a},{${ident(r)}:"${pick(r, UI_STRINGS)}",${ident(r)}:${int(r, 0, 1e6)},${ident(r)}:"${kebab(r, 3)}"});`;
    case 9:
      return `for(var ${a}=0,${b}=${c}.length;${a}<${b};${a}++)${c}[${a}].${ident(r)}&&${short(r)}.push(${c}[${a}]);`;
    case 10:
      return `try{localStorage.setItem("${kebab(r)}",JSON.stringify(${a}))}catch(${b}){console.warn("[${kebab(r)}]",${b})}`;
    default:
      return `return ${a}&&${a}.__esModule?${a}:{default:${a}}};`;
  }
}

function genJs(r: Rng, size: number): string {
  let out = pick(r, [
    '(self.webpackChunk_N_E=self.webpackChunk_N_E||[]).push([[' + int(r, 100, 999) + '],{',
    '!function(){"use strict";',
    '(function(w,d){',
    'window.__APP_RUNTIME__=window.__APP_RUNTIME__||{};',
  ]);
  while (out.length < size) out += jsStatement(r);
  return out + pick(r, ['}]);', '}();', '})(window,document);', '']);
}

const CSS_PROPS: readonly (readonly [string, readonly string[]])[] = [
  ['display', ['flex', 'block', 'grid', 'none', 'inline-flex', 'inline-block']],
  ['align-items', ['center', 'flex-start', 'stretch']],
  ['justify-content', ['space-between', 'center', 'flex-end']],
  ['margin', ['0', '0 auto', '1rem 0', '0 0 .5rem', '-1px']],
  ['padding', ['0', '.75rem 1rem', '12px 16px', '4px 8px', '2rem 0']],
  ['color', ['#1a1a1a', 'var(--color-text)', '#6b7280', 'inherit', '#0b57d0']],
  ['background', ['#fff', 'transparent', 'var(--surface-2)', 'rgba(0,0,0,.04)']],
  ['font-size', ['.875rem', '1rem', '14px', '1.125rem', '12px']],
  ['font-weight', ['400', '500', '600', '700']],
  ['line-height', ['1.5', '1.25', '20px', '1.6']],
  ['border', ['0', '1px solid #e5e7eb', '1px solid var(--border)']],
  ['border-radius', ['4px', '8px', '9999px', '.375rem']],
  ['transition', ['opacity .2s ease', 'transform .3s cubic-bezier(.4,0,.2,1)', 'all .15s']],
  ['position', ['relative', 'absolute', 'sticky', 'fixed']],
  ['z-index', ['1', '10', '100', '999']],
  ['gap', ['.5rem', '1rem', '8px', '24px']],
  ['max-width', ['100%', '1200px', '72ch', '640px']],
];

function genCss(r: Rng, size: number, prefix: string): string {
  const colors = ['#0b57d0', '#1f6feb', '#d93025', '#188038', '#f9ab00', '#202124', '#5f6368'];
  let out = ':root{';
  for (let i = 0; i < 24; i++)
    out += `--${prefix}-${pick(r, ['color', 'space', 'radius', 'shadow'])}-${int(r, 1, 9)}00:${pick(r, colors)};`;
  out += '}';
  while (out.length < size) {
    const sel =
      r() < 0.6
        ? `.${prefix}-${kebab(r, 1)}__${pick(r, WORDS)}${r() < 0.3 ? '--' + pick(r, WORDS) : ''}`
        : `.${prefix}-${kebab(r)}${r() < 0.5 ? ' > ' + pick(r, ['a', 'li', 'svg', 'span', 'img', 'p']) : ':hover'}`;
    let body = '';
    for (let i = int(r, 2, 6); i > 0; i--) {
      const [p, vs] = pick(r, CSS_PROPS);
      body += `${p}:${pick(r, vs)};`;
    }
    const rule = `${sel}{${body.slice(0, -1)}}`;
    out +=
      r() < 0.12
        ? `@media (min-width:${pick(r, ['640px', '768px', '1024px', '1280px'])}){${rule}}`
        : rule;
  }
  return out;
}

function genPath(r: Rng, n: number): string {
  let d = `M${int(r, 0, 24)}.${int(r, 0, 99)} ${int(r, 0, 24)}.${int(r, 0, 99)}`;
  for (let i = 0; i < n; i++) {
    const cmd = pick(r, ['c', 'l', 's', 'a', 'h', 'v', 'C', 'L']);
    const args =
      cmd === 'h' || cmd === 'v'
        ? 1
        : cmd === 'a'
          ? 7
          : cmd.toLowerCase() === 'c'
            ? 6
            : cmd === 's'
              ? 4
              : 2;
    const nums: string[] = [];
    for (let j = 0; j < args; j++)
      nums.push(`${r() < 0.3 ? '-' : ''}${int(r, 0, 12)}.${int(r, 0, 99)}`);
    d += cmd + nums.join(' ');
  }
  return d + 'z';
}

function genSprite(r: Rng, n: number): string {
  let out =
    '<svg xmlns="http://www.w3.org/2000/svg" aria-hidden="true" style="position:absolute;width:0;height:0;overflow:hidden"><defs>';
  for (let i = 0; i < n; i++)
    out += `<symbol id="icon-${kebab(r, 2)}-${i}" viewBox="0 0 24 24"><path fill="currentColor" d="${genPath(r, int(r, 12, 40))}"/></symbol>`;
  return out + '</defs></svg>';
}

function genIcon(r: Rng, cls: string): string {
  return `<svg class="${cls}" width="20" height="20" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false"><path d="${genPath(r, int(r, 6, 18))}"></path></svg>`;
}

function genJsonValue(r: Rng, depth: number): unknown {
  if (depth <= 0 || r() < 0.35) {
    switch (int(r, 0, 4)) {
      case 0:
        return int(r, 0, 100000);
      case 1:
        return pick(r, UI_STRINGS);
      case 2:
        return r() < 0.5;
      case 3:
        return `/${kebab(r)}/${int(r, 1, 999)}`;
      default:
        return Math.floor(r() * 2 ** 32).toString(16) + Math.floor(r() * 2 ** 32).toString(16);
    }
  }
  if (r() < 0.3) {
    const arr: unknown[] = [];
    for (let i = int(r, 1, 5); i > 0; i--) arr.push(genJsonValue(r, depth - 1));
    return arr;
  }
  const obj: Record<string, unknown> = {};
  for (let i = int(r, 2, 6); i > 0; i--) obj[ident(r)] = genJsonValue(r, depth - 1);
  return obj;
}

function genJson(r: Rng, size: number): string {
  const root: Record<string, unknown> = {
    props: { pageProps: {} as Record<string, unknown>, __N_SSP: true },
    buildId: Math.floor(r() * 2 ** 48).toString(36),
    runtimeConfig: {},
  };
  const pageProps = (root['props'] as { pageProps: Record<string, unknown> }).pageProps;
  let i = 0;
  while (JSON.stringify(root).length < size) pageProps[`${ident(r)}${i++}`] = genJsonValue(r, 4);
  return JSON.stringify(root);
}

function genBase64(r: Rng, bytes: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  let s = 'R0lGODlhAQABAIAAAAAAAP';
  while (s.length < bytes) s += alphabet[Math.floor(r() * 64)];
  return s + '==';
}

function expand(kind: string, args: Record<string, string>, r: Rng): string {
  const size = Number(args['size'] ?? 20000);
  switch (kind) {
    case 'js':
      return `<script${args['attrs'] ? ' ' + args['attrs'].replaceAll('+', ' ') : ''}>${genJs(r, size)}</script>`;
    case 'css':
      return `<style${args['id'] ? ` id="${args['id']}"` : ''}>${genCss(r, size, args['prefix'] ?? 'c')}</style>`;
    case 'sprite':
      return genSprite(r, Number(args['n'] ?? 30));
    case 'icon':
      return genIcon(r, args['cls'] ?? 'icon');
    case 'json':
      return `<script id="${args['id'] ?? '__NEXT_DATA__'}" type="application/json">${genJson(r, size)}</script>`;
    case 'attr':
      // HTML-escaped JSON for data-* attributes (Discourse's data-preloaded, React props, …).
      return genJson(r, size).replaceAll('&', '&amp;').replaceAll('"', '&quot;');
    case 'b64':
      return `data:image/gif;base64,${genBase64(r, size)}`;
    default:
      throw new Error(`unknown bulk kind ${kind}`);
  }
}

const MARKER = /<!--bulk:(\w+)((?:\s+[\w-]+=[^\s>]+)*)\s*-->/g;

function expandPage(slug: string): void {
  const file = join(corpusDir, slug, 'source.html');
  if (!existsSync(file)) return;
  const html = readFileSync(file, 'utf8');
  let n = 0;
  const out = html.replace(MARKER, (_m, kind: string, rawArgs: string) => {
    const args: Record<string, string> = {};
    for (const part of rawArgs.trim().split(/\s+/)) {
      if (!part) continue;
      const eq = part.indexOf('=');
      args[part.slice(0, eq)] = part.slice(eq + 1);
    }
    return expand(kind, args, seeded(`${slug}#${n++}`));
  });
  if (n > 0) {
    writeFileSync(file, out);
    console.log(`${slug}: expanded ${n} markers, ${(out.length / 1024).toFixed(0)} KB`);
  }
}

const slugs = process.argv.slice(2);
for (const slug of slugs.length > 0 ? slugs : readdirSync(corpusDir)) expandPage(slug);
