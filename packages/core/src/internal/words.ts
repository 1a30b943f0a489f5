/**
 * The words of a text, for ranking and matching: camelCase split, lower-cased, anything that is
 * not a letter or a digit a separator. Shared by map's ranking, passages and monitor judging.
 */

/** Lower-case words: split on anything but letters and digits, and at camelCase humps. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0);
}
