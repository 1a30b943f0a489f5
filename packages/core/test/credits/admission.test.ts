/**
 * Admission's tickets pay for model calls before they are made: each call reserves its upper
 * bound (prompt estimate and the most its answer may take) in credits and under the token cap,
 * and a call that does not fit never reaches the model. Concurrent calls of several tickets
 * never charge past the team's credits. The model is a fake in this file (a paid service).
 */
import { describe, expect, it } from 'vitest';
import { MemoryStore, type LlmProvider, type LlmRequest, type LlmUsage } from '@trawl/core';
import { Admission, AdmissionTicket, CreditLedger, type TokenAllowance } from '@trawl/core/server';

/** A model that answers after `delayMs` with `usage`, recording what it was sent. */
function fakeModel(usage: LlmUsage, delayMs = 20) {
  const sent: LlmRequest[] = [];
  const llm: LlmProvider = {
    model: 'fake',
    async complete(request) {
      sent.push(request);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return { text: '{}', usage };
    },
  };
  return { llm, sent };
}

const ask = (llm: LlmProvider) =>
  llm.complete({ messages: [{ role: 'user', content: 'The title, please.' }] });

async function admitted(admission: Admission, work: Parameters<Admission['admit']>[1]) {
  const ticket = await admission.admit('team', work);
  if (!(ticket instanceof AdmissionTicket)) throw new Error(`refused: ${JSON.stringify(ticket)}`);
  return ticket;
}

describe('Admission, model calls', () => {
  it('reserves one call up front and refuses a call that does not fit before sending it', async () => {
    const ledger = new CreditLedger(new MemoryStore(), { perTeam: 4 });
    const admission = new Admission(ledger, undefined, { callTokens: 2000 });
    const ticket = await admitted(admission, { credits: 1, callsModel: true });
    // The scrape's credit and a call of up to 2,000 tokens (2 credits) are held.
    expect(await ledger.available('team')).toBe(1);
    const { llm, sent } = fakeModel({ inputTokens: 1500, outputTokens: 900 });
    const model = ticket.model(llm);
    await ask(model);
    // The answer length is bounded, so the reservation is an upper bound.
    expect(sent[0]?.maxTokens).toBeGreaterThan(0);
    // 2,400 tokens used (3 credits) and another call of up to 2,000: past the 3 credits left.
    await expect(ask(model)).rejects.toMatchObject({ code: 'PAYMENT_REQUIRED' });
    expect(sent).toHaveLength(1);
    expect(await ticket.settle({ scrape: 1 })).toBe(4);
    expect(await ledger.usage('team')).toMatchObject({ debited: 4, remaining: 0 });
    expect(await ledger.available('team')).toBe(0);
  });

  it('never charges past the credits, however many calls run at once', async () => {
    const limit = 12;
    const ledger = new CreditLedger(new MemoryStore(), { perTeam: limit });
    const admission = new Admission(ledger, undefined, { callTokens: 1500 });
    // Each call uses 1,400 tokens: 2 credits, though it reserved as much.
    const { llm } = fakeModel({ inputTokens: 800, outputTokens: 600 }, 30);
    const work = async () => {
      const ticket = await admission.admit('team', { credits: 1, callsModel: true });
      if (!(ticket instanceof AdmissionTicket)) return 0;
      const model = ticket.model(llm);
      await Promise.allSettled([ask(model), ask(model), ask(model)]);
      return ticket.settle({ scrape: 1 });
    };
    const charged = await Promise.all(Array.from({ length: 10 }, work));
    const total = charged.reduce((sum, credits) => sum + credits, 0);
    expect(total).toBeGreaterThan(0);
    expect(total).toBeLessThanOrEqual(limit);
    expect((await ledger.usage('team')).debited).toBe(total);
    expect(await ledger.available('team')).toBe(limit - total);
  });

  it('holds each call under the token cap at its bound', async () => {
    const reserved: number[] = [];
    const cap = 5000;
    const allowance: TokenAllowance = {
      reserve: (_team, _id, tokens) => {
        reserved.push(tokens);
        return Promise.resolve(tokens > cap ? new Error('over the cap') : undefined);
      },
      settle: () => Promise.resolve(),
    };
    const ledger = new CreditLedger(new MemoryStore());
    const admission = new Admission(ledger, allowance, { callTokens: 2000 });
    const ticket = await admitted(admission, { credits: 1, callsModel: true });
    const { llm, sent } = fakeModel({ inputTokens: 1000, outputTokens: 1000 });
    const model = ticket.model(llm);
    await ask(model);
    await ask(model);
    // 4,000 used, and a call of up to 2,000 more: past 5,000, so not sent.
    await expect(ask(model)).rejects.toThrow('over the cap');
    expect(sent).toHaveLength(2);
    expect(reserved[0]).toBe(2000);
    expect(reserved.at(-1)).toBeGreaterThan(cap);
  });

  it('keeps the calls of a budget within it, not on top of it', async () => {
    const ledger = new CreditLedger(new MemoryStore(), { perTeam: 3 });
    const admission = new Admission(ledger, undefined, { callTokens: 2000 });
    const ticket = await admitted(admission, {
      credits: 3,
      atLeast: 1,
      callsModel: true,
      budget: true,
    });
    expect(ticket.reserved).toBe(3);
    const { llm } = fakeModel({ inputTokens: 400, outputTokens: 400 });
    await ask(ticket.model(llm));
    expect(await ticket.settle({ scrape: 1 })).toBe(2);
    expect(await ledger.available('team')).toBe(1);
  });
});
