/**
 * The JSON text a store wrote for an object, kept beside the object for as long as it lives.
 *
 * A crawl's document is serialised for its result slot, and the `trawl crawl` command printed
 * it as JSON again, ~45 KB a page twice on the crawl's thread. The built-in stores
 * remember the text they write for an object marked with `keepJsonWhenStored`; a writer of the
 * same object takes it instead of serialising again. What it prints is then exactly what the
 * store holds, even if the object were changed after it was stored.
 *
 * Only marked objects: remembering every value kept each page's cache entry (its HTML as JSON,
 * ~90 KB) alive as long as the page, through enough scavenges of the crawl's thread to be
 * promoted, and the old generation then filled every ~150 pages.
 */
const written = new WeakMap<object, string>();
const wanted = new WeakSet<object>();

/** Asks the built-in stores to remember the JSON they write for `value`, to print it again. */
export function keepJsonWhenStored(value: object): void {
  wanted.add(value);
}

/** `JSON.stringify(value)`, remembered for a marked object. For the stores of this package. */
export function storedJson(value: unknown): string {
  const json = JSON.stringify(value);
  if (typeof value === 'object' && value !== null && wanted.has(value)) written.set(value, json);
  return json;
}

/** The text a built-in store last wrote for this object, or its JSON now. */
export function jsonAsStored(value: object): string {
  return written.get(value) ?? JSON.stringify(value);
}
