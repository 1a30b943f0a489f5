/** `trawl feedback list`: the feedback callers sent on their jobs, for the operator to read. */
import { ValidationError } from '@trawl/core';
import {
  feedbackEndpoints,
  listFeedback,
  type FeedbackEndpoint,
  type FeedbackFilter,
  type StoredFeedback,
} from '@trawl/core/server';
import { loadConfig } from '../config.ts';
import { parseFlags, UsageError } from './args.ts';
import type { Command } from './index.ts';
import { quietFlagOption, quietHelp, toInteger } from './page-flags.ts';
import { openStore } from './store.ts';

const usage = `Usage: trawl feedback list [options]

Lists the feedback the server took (POST /v2/feedback and search feedback), oldest first: time,
team, endpoint, job, rating, credits refunded, and what the caller said.

Options:
  --team <name>        only this team's feedback
  --endpoint <name>    only feedback on search, scrape, parse or map jobs
  --since <when>       only feedback from this time on: an ISO date or time (2025-06-01,
                       2025-06-01T12:00:00Z) or a duration back from now (90m, 24h, 7d)
  --limit <n>          at most n entries
  --json               one JSON object per line (every stored field) instead of a table
${quietHelp}
  -h, --help           show this help

Feedback lives in the SQLite store of $TRAWL_DATA_DIR, beside the jobs it is about.

Examples:
  trawl feedback list --team ops --since 24h --json
`;

/** The feedback command. */
export const feedbackCommand: Command = {
  usage,
  async run(args, io) {
    const { values, positionals } = parseFlags(args, {
      team: { type: 'string' },
      endpoint: { type: 'string' },
      since: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
      // Nothing but the list is printed; accepted so that -q works on every command.
      ...quietFlagOption,
    });
    const [action, ...extra] = positionals;
    if (action !== 'list' || extra.length > 0) throw new UsageError(`give 'list' and its options`);
    const filter: FeedbackFilter = {};
    if (values.team !== undefined) filter.team = values.team;
    if (values.endpoint !== undefined) filter.endpoint = endpointOf(values.endpoint);
    if (values.since !== undefined) filter.since = sinceOf(values.since, Date.now());
    const limit =
      values.limit === undefined ? Infinity : toInteger(values.limit, '--limit', 'entries');
    if (limit < 1) throw new ValidationError(`--limit takes 1 or more (got '${values.limit}')`);
    const config = loadConfig({ role: 'cli', env: io.env });
    const store = await openStore(config);
    try {
      let count = 0;
      for await (const feedback of listFeedback(store, filter)) {
        if (count >= limit) break;
        count += 1;
        io.stdout(values.json ? `${JSON.stringify(feedback)}\n` : `${line(feedback)}\n`);
      }
      if (!values.json) io.stderr(`${count} feedback entr${count === 1 ? 'y' : 'ies'}\n`);
      return 0;
    } finally {
      await store.close();
    }
  },
};

function endpointOf(value: string): FeedbackEndpoint {
  if ((feedbackEndpoints as readonly string[]).includes(value)) return value as FeedbackEndpoint;
  throw new ValidationError(
    `--endpoint must be one of ${feedbackEndpoints.join(', ')} (got '${value}')`,
  );
}

const durationUnitsMs: Record<string, number> = {
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** `--since`: an ISO date or time, or a duration back from `now` (`90m`, `24h`, `7d`). */
export function sinceOf(value: string, now: number): Date {
  const duration = /^(\d+)([mhd])$/.exec(value.trim());
  if (duration)
    return new Date(now - Number(duration[1]) * (durationUnitsMs[duration[2] ?? 'd'] ?? 0));
  const time = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time))
    throw new ValidationError(
      `--since takes an ISO date or time (2025-06-01, 2025-06-01T12:00:00Z) or a duration such as 90m, 24h or 7d (got '${value}')`,
    );
  return new Date(time);
}

/** One tab-separated line: when, who, what, how rated, refund, and the caller's words. */
function line(feedback: StoredFeedback): string {
  const said = [
    feedback.issues?.length ? `issues=${feedback.issues.join(',')}` : '',
    feedback.note ? `note=${JSON.stringify(feedback.note)}` : '',
    feedback.url ? `url=${feedback.url}` : '',
    feedback.missingContent?.length
      ? `missing=${feedback.missingContent.map((item) => item.topic).join('|')}`
      : '',
    feedback.valuableSources?.length
      ? `sources=${feedback.valuableSources.map((item) => item.url).join(',')}`
      : '',
    feedback.querySuggestions ? `query=${JSON.stringify(feedback.querySuggestions)}` : '',
  ].filter(Boolean);
  return [
    feedback.createdAt,
    feedback.team,
    feedback.endpoint,
    feedback.jobId,
    feedback.rating,
    `refunded=${feedback.creditsRefunded}/${feedback.jobCredits}`,
    said.join(' '),
  ].join('\t');
}
