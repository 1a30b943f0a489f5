import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryStore, SqliteStore } from '@trawl/core';
import { CreditLedger } from '@trawl/core/server';

const jobId = '0190a6a4-0000-7000-8000-000000000001';

describe('CreditLedger', () => {
  it('keeps a team’s debits and refunds, and counts down from its credits', async () => {
    const ledger = new CreditLedger(new MemoryStore(), { perTeam: 10 });
    await ledger.debit('team-a', 3, { endpoint: 'scrape', jobId });
    await ledger.debit('team-a', 2, { endpoint: 'map' });
    expect(await ledger.usage('team-a')).toEqual({
      debited: 5,
      refunded: 0,
      limit: 10,
      remaining: 5,
    });
    expect(await ledger.refund('team-a', 1, { endpoint: 'scrape', jobId })).toBe(1);
    expect(await ledger.remaining('team-a')).toBe(6);
    expect(await ledger.usage('team-b')).toEqual({
      debited: 0,
      refunded: 0,
      limit: 10,
      remaining: 10,
    });
  });

  it('keeps the ledger without a limit, and never refuses', async () => {
    const ledger = new CreditLedger(new MemoryStore());
    await ledger.debit('team-a', 1_000, { endpoint: 'crawl', jobId });
    expect(await ledger.usage('team-a')).toMatchObject({ debited: 1_000, remaining: undefined });
    expect(await ledger.allows('team-a', 1_000_000)).toBe(true);
  });

  it('refuses work once the credits are spent, and allows it again after a refund', async () => {
    const ledger = new CreditLedger(new MemoryStore(), { perTeam: 2 });
    await ledger.debit('team-a', 2, { endpoint: 'scrape', jobId });
    expect(await ledger.allows('team-a')).toBe(false);
    await ledger.refund('team-a', 1, { endpoint: 'scrape', jobId });
    expect(await ledger.allows('team-a')).toBe(true);
    expect(await ledger.allows('team-a', 2)).toBe(false);
  });

  it('never refunds more than a job was charged, however the refunds are split', async () => {
    const ledger = new CreditLedger(new MemoryStore());
    await ledger.debit('team-a', 5, { endpoint: 'scrape', jobId });
    expect(await ledger.refund('team-a', 3, { endpoint: 'scrape', jobId })).toBe(3);
    expect(await ledger.refund('team-a', 3, { endpoint: 'scrape', jobId })).toBe(2);
    expect(await ledger.refund('team-a', 3, { endpoint: 'scrape', jobId })).toBe(0);
    expect(await ledger.jobCharges('team-a', jobId)).toEqual({ debited: 5, refunded: 5 });
    // Another team's job of the same id was never charged to this one.
    expect(await ledger.refund('team-b', 1, { endpoint: 'scrape', jobId })).toBe(0);
  });

  it('loses no update when many debits arrive at once', async () => {
    const ledger = new CreditLedger(new MemoryStore());
    await Promise.all(
      Array.from({ length: 50 }, () => ledger.debit('team-a', 1, { endpoint: 'scrape' })),
    );
    expect((await ledger.usage('team-a')).debited).toBe(50);
  });

  it('lists a team’s lines oldest first, from a point in time', async () => {
    const ledger = new CreditLedger(new MemoryStore());
    await ledger.debit('team/a', 1, { endpoint: 'scrape', jobId });
    await ledger.debit('team-b', 7, { endpoint: 'map' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const middle = new Date();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await ledger.refund('team/a', 1, { endpoint: 'scrape', jobId, feedbackId: 'f-1' });
    const all = [];
    for await (const entry of ledger.entries('team/a')) all.push(entry);
    expect(all.map((entry) => [entry.kind, entry.credits, entry.team])).toEqual([
      ['debit', 1, 'team/a'],
      ['refund', 1, 'team/a'],
    ]);
    expect(all[1]).toMatchObject({ endpoint: 'scrape', jobId, feedbackId: 'f-1' });
    const recent = [];
    for await (const entry of ledger.entries('team/a', middle)) recent.push(entry.kind);
    expect(recent).toEqual(['refund']);
  });

  it('prices each kind of work, 1 credit unless configured (a JSON monitor page 5)', () => {
    const ledger = new CreditLedger(new MemoryStore(), { prices: { crawl: 2, search: 0 } });
    expect(ledger.cost('scrape')).toBe(1);
    expect(ledger.cost('crawl', 7)).toBe(14);
    expect(ledger.cost('search')).toBe(0);
    expect(ledger.prices.monitorPage(false)).toBe(1);
    expect(ledger.prices.monitorPage(true)).toBe(5);
    // Tokens per started thousand.
    expect(ledger.prices.tokenCredits(0)).toBe(0);
    expect(ledger.prices.tokenCredits(1)).toBe(1);
    expect(ledger.prices.tokenCredits(1000)).toBe(1);
    expect(ledger.prices.tokenCredits(1001)).toBe(2);
  });

  it('refuses bad prices and bad amounts with BAD_REQUEST', () => {
    const store = new MemoryStore();
    expect(() => new CreditLedger(store, { prices: { scrape: -1 } })).toThrow(
      expect.objectContaining({ code: 'BAD_REQUEST' }),
    );
    expect(
      () => new CreditLedger(store, { prices: { scrapes: 1 } as unknown as { scrape: number } }),
    ).toThrow(/scrapes/);
    expect(() => new CreditLedger(store, { perTeam: 1.5 })).toThrow(
      expect.objectContaining({ code: 'BAD_REQUEST' }),
    );
    const ledger = new CreditLedger(store);
    expect(() => ledger.debit('team-a', -1, { endpoint: 'scrape' })).toThrow(
      expect.objectContaining({ code: 'BAD_REQUEST' }),
    );
    expect(() => ledger.refund('team-a', 0.5, { endpoint: 'scrape', jobId })).toThrow(
      expect.objectContaining({ code: 'BAD_REQUEST' }),
    );
  });

  it('keeps the balance in the store across a restart', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'trawl-ledger-')), 'trawl.db');
    const first = new SqliteStore({ path });
    await new CreditLedger(first, { perTeam: 5 }).debit('team-a', 4, { endpoint: 'scrape' });
    await first.close();
    const second = new SqliteStore({ path });
    expect(await new CreditLedger(second, { perTeam: 5 }).remaining('team-a')).toBe(1);
    await second.close();
  });
});
