/**
 * Settings of the credits ledger: what each kind of work costs and how many credits a team has.
 * The single home of their defaults; packages/http maps its configuration rows onto this schema.
 */
import { z } from 'zod';

/**
 * What a ledger entry can be charged for: the /v2 endpoints that do work, and monitor checks.
 * Crawls, batch scrapes and monitor checks are priced per page; the others per request.
 */
export const creditEndpoints = [
  'scrape',
  'map',
  'crawl',
  'batch_scrape',
  'parse',
  'search',
  'monitor',
  'llm_tokens',
] as const;

/** One of {@link creditEndpoints}. */
export type CreditEndpoint = (typeof creditEndpoints)[number];

const price = (what: string, fallback = 1) =>
  z.number().int().min(0).max(1_000_000).default(fallback).describe(`Credits per ${what}.`);

/**
 * Credits each kind of work costs. Every price defaults to 1, the hosted service's base rate,
 * but a monitor page with a JSON extraction (5, as the hosted service bills it).
 */
export const creditPricesSchema = z.strictObject({
  /** @default 1 */
  scrape: price('scrape'),
  /** @default 1 */
  map: price('map'),
  /** @default 1 */
  crawl: price('page crawled'),
  /** @default 1 */
  batch_scrape: price('page of a batch scrape'),
  /** @default 1 */
  parse: price('parsed file'),
  /** @default 1 */
  search: price('search'),
  /** @default 1 */
  monitor: price('page a monitor check scrapes, search query or judgment it makes'),
  /** A monitor page with a JSON extraction, as the hosted service bills it. @default 5 */
  monitor_json: price('page a monitor check scrapes and extracts JSON from', 5),
  /** Charged on each request's LLM tokens, rounded up to whole thousands. @default 1 */
  llm_tokens: price('1,000 LLM tokens (json, summary and other LLM formats)'),
});

/** Options of {@link CreditLedger}. */
export const creditLedgerOptionsSchema = z.strictObject({
  /**
   * Credits each team may spend; spent credits come back through refunds. Unset: unlimited
   * (self-hosting), and the ledger is still kept.
   */
  perTeam: z.number().int().min(0).optional(),
  /** Price of each kind of work; each unset price is 1. */
  prices: creditPricesSchema.prefault({}),
});

/** What callers pass to configure the ledger. */
export type CreditLedgerOptions = z.input<typeof creditLedgerOptionsSchema>;
/** Ledger settings with every default applied. */
export type ResolvedCreditLedgerOptions = z.output<typeof creditLedgerOptionsSchema>;
/** Credits per kind of work. */
export type CreditPrices = z.output<typeof creditPricesSchema>;
