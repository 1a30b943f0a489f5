/**
 * How webhooks are signed: `X-Firecrawl-Signature: sha256=<HMAC-SHA256 of the raw body>`, as the
 * hosted service sends it, under a key of the team whose job sent the event.
 */
import { createHmac } from 'node:crypto';

/**
 * The key of a team's `X-Firecrawl-Signature` (HMAC-SHA256 of the raw body, hex): an HMAC of the
 * team's name under the server's secret, given to the team's receivers as is (the text of the
 * hex). One key for every team let a team have the server sign a payload it chose — a crawl of
 * its own page, its own `metadata` — and replay it to another team's receiver, which took it as
 * the server's word. A team's key tells nothing of the secret nor of another team's key.
 * `trawl keys webhook-secret --team <name>` prints it.
 */
export function webhookSigningKey(secret: string, team: string): string {
  return createHmac('sha256', secret)
    .update(`trawl webhook signing key\u0000${team}`)
    .digest('hex');
}

/** The `X-Firecrawl-Signature` value of `body`, sent for `team`. */
export function signatureOf(secret: string, team: string, body: string): string {
  return `sha256=${createHmac('sha256', webhookSigningKey(secret, team)).update(body).digest('hex')}`;
}
