/**
 * Formats this engine knows by name but cannot produce yet: asking for one is an error that says
 * what it needs, never a silently missing field.
 */
import { NotConfiguredError } from '../../errors.ts';
import type { FormatName } from '../options.ts';
import type { FormatHandler } from './index.ts';

function refuse(
  format: FormatName,
  reason: string,
  code: 'NOT_CONFIGURED' | 'CAPABILITY_UNAVAILABLE',
): FormatHandler {
  return {
    ensureAvailable() {
      throw new NotConfiguredError(`The '${format}' format ${reason}`, {
        code,
        details: [{ path: ['formats'], message: `format '${format}' is not available` }],
      });
    },
    apply() {
      // ensureAvailable always throws first, so this never runs.
    },
  };
}

/** A format the self-hosted engine does not offer. */
export const notOffered = (format: FormatName): FormatHandler =>
  refuse(
    format,
    'is not offered by this Trawl build. Use markdown, html, rawHtml, links or images.',
    'CAPABILITY_UNAVAILABLE',
  );
