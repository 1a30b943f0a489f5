/**
 * The hostile site as a process of its own (startHostileSiteProcess): prints `SITE <url>` once it
 * listens, and serves until it is killed.
 */
import { startHostileSite } from './hostile-site.ts';

const site = await startHostileSite();
console.log(`SITE ${site.url}`);
