/**
 * The JSON text a store wrote for an object, kept beside the object for as long as it lives.
 *
 * A crawl's document is serialised for its result slot, and the `trawl crawl` command printed
 * it as JSON again, ~45 KB a page twice on the crawl's thread (issue 17). The built-in stores
 * remember the text they wrote; a writer of the same object takes it instead of serialising
 * again. What it prints is then exactly what the store holds, even if the object were changed
 * after it was stored.
 */
const written = new WeakMap<object, string>();

/** `JSON.stringify(value)`, remembered for an object. For the stores of this package. */
export function storedJson(value: unknown): string {
  const json = JSON.stringify(value);
  if (typeof value === 'object' && value !== null) written.set(value, json);
  return json;
}

/** The text a built-in store last wrote for this object, or its JSON now. */
export function jsonAsStored(value: object): string {
  return written.get(value) ?? JSON.stringify(value);
}
