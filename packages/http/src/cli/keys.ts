/** `trawl keys`: API keys of the server, kept as hashes in the data folder's store. */

import { defaultTeam, NotFoundError, webhookSigningKey } from '@trawl/core';
import { loadConfig } from '../config.ts';
import { createApiKey, listApiKeys, revokeApiKey } from '../server/auth.ts';
import { parseFlags, UsageError } from './args.ts';
import type { Command } from './index.ts';
import { quietable, quietFlagOption, quietHelp } from './page-flags.ts';
import { openStore } from './store.ts';

const usage = `Usage: trawl keys create [--team <name>]
       trawl keys list
       trawl keys revoke <prefix|key>
       trawl keys webhook-secret --team <name>

create          makes a new API key for a team and prints it (only now: the store keeps its hash);
                without --team, for team 'default': the team of what the CLI makes (monitors,
                crawls) unless given --team, so the key sees them through the server
list            shows each stored key's team, first characters and creation time
revoke          removes the stored key shown by 'list' with that prefix (or the whole key); a
                running server refuses it within 5 seconds
webhook-secret  prints the key a team's webhook receivers check X-Firecrawl-Signature with:
                derived from TRAWL_WEBHOOK_SECRET and the team (bare keys and a keyless
                server are team 'default'); each team's is its own

${quietHelp}

Keys live in the store of $TRAWL_DATA_DIR (or TRAWL_STORE); \`trawl serve\` reads them beside
TRAWL_API_KEYS, again every few seconds while it runs. A server with any key requires one on
every /v2 call.

Examples:
  trawl keys create
  trawl keys create --team ops
  trawl keys revoke fc-AbCdE
`;

/** The keys command. */
export const keysCommand: Command = {
  usage,
  async run(args, cliIo) {
    const { values, positionals } = parseFlags(args, {
      team: { type: 'string' },
      ...quietFlagOption,
    });
    const io = quietable(cliIo, values.quiet);
    const [action, ...extra] = positionals;
    const revoking = action === 'revoke' && extra.length === 1;
    if (
      !revoking &&
      (extra.length > 0 ||
        (action !== 'create' && action !== 'list' && action !== 'webhook-secret'))
    )
      throw new UsageError(
        `give 'create [--team <name>]', 'list', 'revoke <prefix>' or 'webhook-secret --team <name>'`,
      );
    const config = loadConfig({ role: 'cli', env: io.env });
    if (action === 'webhook-secret') {
      if (!values.team) throw new UsageError(`keys webhook-secret needs --team <name>`);
      const secret = config.server.webhookSecret;
      if (!secret) throw new UsageError('TRAWL_WEBHOOK_SECRET is not set: webhooks are unsigned');
      io.stdout(`${webhookSigningKey(secret, values.team)}\n`);
      return 0;
    }
    const store = await openStore(config);
    try {
      if (action === 'create') {
        const team = values.team ?? defaultTeam;
        io.stdout(`${await createApiKey(store, team)}\n`);
        io.stderr(`Key for team '${team}' created; it is not shown again.\n`);
        // The README's first server call lists the CLI's monitors: say when this key cannot.
        if (team !== defaultTeam)
          io.stderr(
            `It sees team '${team}' only: what the CLI makes without --team (monitors, crawls) is team '${defaultTeam}'; give '--team ${team}' to 'trawl monitor create' for this key to see it.\n`,
          );
      } else if (action === 'revoke') {
        const prefix = extra[0] ?? '';
        const revoked = await revokeApiKey(store, prefix);
        if (!revoked)
          throw new NotFoundError(`no stored key starts with '${prefix}'; see 'trawl keys list'`);
        io.stderr(`Key ${revoked.prefix}… of team '${revoked.team}' revoked.\n`);
      } else {
        for (const key of await listApiKeys(store))
          io.stdout(`${key.team}\t${key.prefix}…\t${key.createdAt}\n`);
      }
      return 0;
    } finally {
      await store.close();
    }
  },
};
