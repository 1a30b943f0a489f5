/**
 * The /v2 routes as plugins: each file registers the routes of one concern on the server's
 * scope, from the one ServerContext. A new capability is a new file and one line here.
 */
import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../context.ts';
import { agentRoutes } from './agent.ts';
import { browserRoutes } from './browser.ts';
import { crawlPromptRoutes } from './crawl-prompt.ts';
import { dashboardRoutes } from './dashboard.ts';
import { extractRoutes } from './extract.ts';
import { feedbackRoutes } from './feedback.ts';
import { healthRoutes } from './health.ts';
import { hostedIndexRoutes } from './hosted-indexes.ts';
import { jobRoutes } from './jobs.ts';
import { monitorRoutes } from './monitors.ts';
import { openApiRoutes } from './openapi.ts';
import { parseRoutes } from './parse.ts';
import { scrapeRoutes } from './scrape.ts';
import { searchRoutes } from './search.ts';
import { teamRoutes } from './team.ts';
import { v1Routes } from './v1.ts';

/** Registers one concern's routes. */
export type RoutePlugin = (app: FastifyInstance, server: ServerContext) => void;

/** Every route plugin of the server, in registration order. */
export const routePlugins: readonly RoutePlugin[] = [
  healthRoutes,
  scrapeRoutes,
  parseRoutes,
  jobRoutes,
  crawlPromptRoutes,
  searchRoutes,
  hostedIndexRoutes,
  extractRoutes,
  agentRoutes,
  feedbackRoutes,
  monitorRoutes,
  browserRoutes,
  teamRoutes,
  openApiRoutes,
  v1Routes,
  dashboardRoutes,
];
