/**
 * `redactPII`: replaces personal data in the text outputs. Detection is by pattern (with a Luhn
 * check for card numbers), which covers e-mails, phone numbers, card, IBAN and ID numbers and
 * well-known secret formats. Names and places need a named-entity model, which this engine does
 * not ship: asking for PERSON or LOCATION is refused rather than silently ignored.
 */
import { NotConfiguredError } from '../errors.ts';
import { isTag, isText, type ParentNode } from './dom.ts';
import type { PiiEntity, RedactPiiOptions } from '../scrape/options.ts';

interface Detector {
  entity: PiiEntity;
  /** The tag written with `replaceStyle: 'tag'`. */
  tag: string;
  pattern: RegExp;
  /** Extra check on a match (Luhn, reserved ranges). */
  accept?: (match: string) => boolean;
}

const detectors: Detector[] = [
  {
    entity: 'EMAIL',
    tag: 'EMAIL',
    // Only from the start of a run of local-part characters: tried from every position of a
    // long run without an @, the pattern rescanned the run each time (quadratic: 1 MB of one
    // letter took minutes). A later start in the same run reaches the same @ anyway.
    pattern:
      /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g,
  },
  {
    entity: 'SECRET',
    tag: 'SECRET',
    pattern:
      /\b(?:(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36,}|xox[baprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35})\b/g,
  },
  {
    entity: 'FINANCIAL',
    tag: 'IBAN',
    pattern: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b/g,
    accept: isValidIban,
  },
  {
    entity: 'FINANCIAL',
    tag: 'CREDIT_CARD',
    pattern: /\b\d(?:[ -]?\d){12,18}\b/g,
    accept: (match) => passesLuhn(match.replace(/\D/g, '')),
  },
  // US social security numbers; the ranges 000, 666 and 9xx are never issued.
  {
    entity: 'SECRET',
    tag: 'SSN',
    pattern: /\b(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}\b/g,
  },
  // International numbers need their + prefix and 8 to 15 digits (E.164).
  {
    entity: 'PHONE',
    tag: 'PHONE',
    pattern: /(?<![\w.+-])\+\d{1,3}(?:[ .-]?\(?\d{1,4}\)?){1,4}[ .-]?\d{2,4}(?![\w-]|\.\d)/g,
    accept: (match) => {
      const digits = match.replace(/\D/g, '').length;
      return digits >= 8 && digits <= 15;
    },
  },
  // North American numbers: exactly 3-3-4 digits, so order numbers and dates do not match.
  {
    entity: 'PHONE',
    tag: 'PHONE',
    pattern: /(?<![\w.+-])(?:\(\d{3}\) ?|\d{3}[ .-])\d{3}[ .-]\d{4}(?![\w-]|\.\d)/g,
  },
];

const detectableEntities: readonly PiiEntity[] = ['EMAIL', 'PHONE', 'FINANCIAL', 'SECRET'];

/** The redaction to apply, resolved from the option; `undefined` when off. */
export interface Redaction {
  entities: ReadonlySet<PiiEntity>;
  replaceStyle: RedactPiiOptions['replaceStyle'];
}

/** Resolves `redactPII`; refuses entity kinds that need a model we do not have. @throws CAPABILITY_UNAVAILABLE */
export function resolveRedaction(option: boolean | RedactPiiOptions): Redaction | undefined {
  if (option === false) return undefined;
  if (option === true) return { entities: new Set(detectableEntities), replaceStyle: 'tag' };
  const wanted = option.entities ?? detectableEntities;
  const missing = wanted.filter((entity) => !detectableEntities.includes(entity));
  if (missing.length > 0) {
    throw new NotConfiguredError(
      `redactPII cannot detect ${missing.join(', ')}: that needs a named-entity model, which this engine does not have. Detectable: ${detectableEntities.join(', ')}.`,
      {
        code: 'CAPABILITY_UNAVAILABLE',
        details: [{ path: ['redactPII', 'entities'], message: 'unsupported entity' }],
      },
    );
  }
  return { entities: new Set(wanted), replaceStyle: option.replaceStyle };
}

/** Redacts every text node and URL-bearing attribute below `root`, in place. */
export function redactTree(root: ParentNode, redaction: Redaction): void {
  for (const child of root.children) {
    if (isText(child)) {
      child.data = redactText(child.data, redaction, treeMarkers);
    } else if (isTag(child)) {
      for (const name of redactedAttributes) {
        const value = child.attribs[name];
        if (value) child.attribs[name] = redactText(value, redaction, treeMarkers);
      }
      redactTree(child, redaction);
    }
  }
}

// Attributes whose values reach the markdown or html (mailto: links, image alt text).
const redactedAttributes = ['href', 'src', 'alt', 'title'] as const;

/**
 * How a replacement is written. In the tree we write private-use characters, because markdown
 * escapes the brackets of `[EMAIL]` and the asterisks of a mask; `finishRedaction` turns them
 * into the final text after conversion.
 */
interface Markers {
  tag: (tag: string) => string;
  maskChar: string;
}
const textMarkers: Markers = { tag: (tag) => `[${tag}]`, maskChar: '*' };
const treeMarkers: Markers = { tag: (tag) => `\uE000${tag}\uE001`, maskChar: '\uE002' };

/** Turns the tree markers in converted markdown or html into the final replacement text. */
export function finishRedaction(text: string): string {
  return text.replace(/\uE000([A-Z_]+)\uE001/g, '[$1]').replace(/\uE002/g, '*');
}

/** Replaces every detected item of the chosen kinds in `text`. */
export function redactText(
  text: string,
  redaction: Redaction,
  markers: Markers = textMarkers,
): string {
  let result = text;
  for (const detector of detectors) {
    if (!redaction.entities.has(detector.entity)) continue;
    result = result.replace(detector.pattern, (match) => {
      if (detector.accept && !detector.accept(match)) return match;
      switch (redaction.replaceStyle) {
        case 'tag':
          return markers.tag(detector.tag);
        case 'mask':
          return match.replace(/[A-Za-z0-9]/g, markers.maskChar);
        case 'remove':
          return '';
      }
    });
  }
  return result;
}

function passesLuhn(digits: string): boolean {
  if (digits.length < 13 || digits.length > 19) return false;
  let sum = 0;
  for (let index = 0; index < digits.length; index++) {
    let digit = digits.charCodeAt(digits.length - 1 - index) - 48;
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

function isValidIban(match: string): boolean {
  const iban = match.replace(/ /g, '');
  if (iban.length < 15 || iban.length > 34) return false;
  // ISO 13616: move the first four characters to the end, letters to numbers, mod 97 must be 1.
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const char of rearranged) {
    const value = /[A-Z]/.test(char) ? String(char.charCodeAt(0) - 55) : char;
    for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}
