/**
 * The crawl graph as the crawl and map tests use it: started once per test file, with a fetcher
 * that resolves its host names to 127.0.0.1, both closed when the file's tests end.
 */
import { afterAll } from 'vitest';
import { HttpFetcher } from '@trawl/core';
import {
  crawlGraphAddresses,
  startCrawlGraph,
  type CrawlGraph,
} from '../../../../test/fixture-site/crawl-graph.ts';

export interface GraphFixture {
  graph: CrawlGraph;
  fetcher: HttpFetcher;
  /** The origin of `site.test`, where most crawls start. */
  site: string;
}

export async function openGraphFixture(): Promise<GraphFixture> {
  const graph = await startCrawlGraph();
  const fetcher = new HttpFetcher({ hostAddresses: crawlGraphAddresses });
  afterAll(async () => {
    await fetcher.close();
    await graph.close();
  });
  return { graph, fetcher, site: graph.origin('site.test') };
}
