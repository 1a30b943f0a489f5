/**
 * The Lua scripts of the Redis store: each write that touches a value and its namespace's
 * indexes runs as one script, so readers never see one without the other.
 */
import { createHash } from 'node:crypto';

/** Expired index members a write drops at most, so a write costs about the same every time. */
export const sweepSize = 20;

/** A Lua script, sent by SHA1 first so the body crosses the wire only once per server. */
export interface Script {
  source: string;
  sha: string;
}

export function script(source: string): Script {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/**
 * Writes one entry and its index members in one step.
 * KEYS: value key, index, expiry index. ARGV: key, JSON, ttl ms ('' for none), expiry score, now.
 * Returns up to `sweepSize` keys due to expire by the writer's clock, for the caller to prune.
 */
export const setScript = script(`
redis.call('ZADD', KEYS[2], 0, ARGV[1])
if ARGV[3] == '' then
  redis.call('SET', KEYS[1], ARGV[2])
  redis.call('ZREM', KEYS[3], ARGV[1])
else
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
end
return redis.call('ZRANGE', KEYS[3], '-inf', ARGV[5], 'BYSCORE', 'LIMIT', 0, ${sweepSize})
`);

/**
 * Writes a claim when its key is free or already holds the same owner, with its index members.
 * KEYS: value key, index, expiry index. ARGV: key, owner JSON, ttl ms, expiry score.
 * Returns 1 when written, 0 when another owner holds it (Redis has dropped an expired value).
 */
export const claimScript = script(`
local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[2] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
redis.call('ZADD', KEYS[2], 0, ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
return 1
`);

/**
 * Removes one entry. KEYS: value key, index, expiry index. ARGV: key.
 * Returns 1 when a live value existed: Redis has already dropped an expired one, so DEL says 0.
 */
export const deleteScript = script(`
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return redis.call('DEL', KEYS[1])
`);

/**
 * Drops index members whose value has expired. KEYS: index, expiry index, then one value key per
 * member. ARGV: the members. It checks each value inside the script because a concurrent `set`
 * may have revived the key since the caller saw it missing.
 */
export const pruneScript = script(`
local removed = 0
for i = 1, #ARGV do
  if redis.call('EXISTS', KEYS[i + 2]) == 0 then
    redis.call('ZREM', KEYS[1], ARGV[i])
    redis.call('ZREM', KEYS[2], ARGV[i])
    removed = removed + 1
  end
end
return removed
`);

/**
 * Removes entries whatever their state, for \`clear\`. KEYS: index, expiry index, then one value
 * key per member. ARGV: the members.
 */
export const dropScript = script(`
for i = 1, #ARGV do
  redis.call('UNLINK', KEYS[i + 2])
  redis.call('ZREM', KEYS[1], ARGV[i])
  redis.call('ZREM', KEYS[2], ARGV[i])
end
return #ARGV
`);
