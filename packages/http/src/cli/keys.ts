/** `trawl keys`: API keys of the server, kept as hashes in the data folder's store. */

import { loadConfig } from '../config.ts';
import { createApiKey, listApiKeys } from '../server/auth.ts';
import { parseFlags, UsageError } from './args.ts';
import type { Command } from './index.ts';
import { openStore } from './store.ts';

const usage = `Usage: trawl keys create --team <name>
       trawl keys list

create   makes a new API key for a team and prints it (only now: the store keeps its hash)
list     shows each stored key's team, first characters and creation time

Keys live in the SQLite store of $TRAWL_DATA_DIR; \`trawl serve\` reads them at start, beside
TRAWL_API_KEYS. A server with any key requires one on every /v2 call.
`;

/** The keys command. */
export const keysCommand: Command = {
  usage,
  async run(args, io) {
    const { values, positionals } = parseFlags(args, { team: { type: 'string' } });
    const [action, ...extra] = positionals;
    if (extra.length > 0 || (action !== 'create' && action !== 'list'))
      throw new UsageError(`give 'create --team <name>' or 'list'`);
    const config = loadConfig({ env: io.env });
    const store = await openStore(config);
    try {
      if (action === 'create') {
        if (!values.team) throw new UsageError(`keys create needs --team <name>`);
        io.stdout(`${await createApiKey(store, values.team)}\n`);
        io.stderr(`Key for team '${values.team}' created; it is not shown again.\n`);
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
