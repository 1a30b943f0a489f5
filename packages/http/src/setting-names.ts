/**
 * Core's messages name the engine option that decides a refusal (`maxBodyBytes`,
 * `monitorMinIntervalMinutes` …), which is what a library caller sets. A CLI or server user sets
 * a variable instead, so at these edges a message gains the variable of each option it names.
 */
import { configRows } from './config-rows.ts';
import { envNamesOf } from './config.ts';

const settings = configRows.map((row) => ({
  key: row.key,
  pattern: new RegExp(`\\b${row.key}\\b`),
  env: envNamesOf(row)[0] ?? '',
}));

/** `message` with ` (TRAWL_…)` after the first mention of each option whose variable it lacks. */
export function withSettingNames(message: string): string {
  let named = message;
  for (const { key, pattern, env } of settings) {
    if (env === '' || named.includes(env) || !pattern.test(named)) continue;
    named = named.replace(pattern, `${key} (${env})`);
  }
  return named;
}

/** Webhook deliveries as the API shows them: a refusal's reason names its variable too. */
export function deliveriesWithSettingNames<Delivery extends { error?: string | undefined }>(
  deliveries: readonly Delivery[],
): Delivery[] {
  return deliveries.map((delivery) =>
    delivery.error ? { ...delivery, error: withSettingNames(delivery.error) } : delivery,
  );
}
