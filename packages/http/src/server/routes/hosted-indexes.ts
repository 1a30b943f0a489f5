/**
 * The hosted service's own research indexes (papers, GitHub) and its developer-documentation
 * search, which the official SDKs can call. Their data lives only in the hosted service, so
 * they answer 501 NOT_CONFIGURED, saying so, instead of a bare 404 that reads like a wrong URL.
 */
import { NotConfiguredError } from '@trawl/core';
import type { RoutePlugin } from './index.ts';

const hostedOnly = (what: string) => () => {
  throw new NotConfiguredError(
    `${what} is a hosted index of the Firecrawl service and is not part of a self-hosted Trawl; use POST /v2/search (sources: ["web"] or ["local"]) instead`,
  );
};

export const hostedIndexRoutes: RoutePlugin = (app) => {
  const papers = hostedOnly('The research paper index (/v2/search/research/papers)');
  app.get('/v2/search/research/papers', papers);
  app.get('/v2/search/research/papers/:id', papers);
  app.get('/v2/search/research/papers/:id/similar', papers);
  app.get(
    '/v2/search/research/github',
    hostedOnly('The GitHub research index (/v2/search/research/github)'),
  );
  app.post(
    '/v2/search/developer',
    hostedOnly('The developer documentation index (/v2/search/developer)'),
  );
};
