/**
 * `location` in the browser: the page sees the country's locale, languages and time zone. A
 * self-hosted Trawl has no proxies per country, so the IP address stays the machine's; what a
 * browser reveals of its own location is emulated (hosted: "proxy/locale/timezone emulation").
 */
import { getTimeZones } from '@vvo/tzdb';

/** Locale settings of a browser context. */
export interface BrowserLocale {
  /** BCP 47 locale, e.g. `de-DE`: `navigator.language` and Intl defaults. */
  locale: string;
  /** IANA time zone, e.g. `Europe/Berlin`. */
  timezoneId: string;
}

// Several zones for one country (US, BR, RU …): the one with most tz database zones grouped
// under it stands for the country, which picks the most populous zone for the large ones
// (New York, São Paulo, Sydney, Toronto, Mexico City, Shanghai, Jakarta). Built on first use:
// the table computes every zone's offset through Intl, ~0.3 s of CPU that every `trawl` command
// paid at start-up though only browser scrapes with a `location` read it.
let zoneByCountry: Map<string, string> | undefined;

function zoneOf(country: string): string | undefined {
  if (!zoneByCountry) {
    zoneByCountry = new Map();
    for (const zone of getTimeZones({ includeUtc: false }).sort(
      (a, b) => b.group.length - a.group.length,
    )) {
      if (!zoneByCountry.has(zone.countryCode)) zoneByCountry.set(zone.countryCode, zone.name);
    }
  }
  return zoneByCountry.get(country);
}

/** The country of a `location.country` value (`us-generic` and `us-whitelist` are the US). */
function countryOf(country: string): string {
  return /^us-/i.test(country) ? 'US' : country.toUpperCase();
}

/**
 * Locale and time zone for a request's `location`: the first language when given, otherwise the
 * country's likeliest language (CLDR likely subtags, built into Intl).
 */
export function browserLocaleOf(
  location: { country: string; languages?: string[] | undefined } | undefined,
): BrowserLocale {
  if (!location) return { locale: 'en-US', timezoneId: 'America/New_York' };
  const country = countryOf(location.country);
  let locale = location.languages?.[0];
  if (!locale || locale === '*') {
    try {
      const language = new Intl.Locale(`und-${country}`).maximize().language;
      locale = `${language}-${country}`;
    } catch {
      locale = 'en-US';
    }
  }
  return { locale, timezoneId: zoneOf(country) ?? 'UTC' };
}
