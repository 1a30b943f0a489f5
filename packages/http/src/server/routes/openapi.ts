/** `GET /v2/openapi.json`: the OpenAPI document, built from the schemas that validate requests. */
import { openApiDocument } from '../openapi.ts';
import type { RoutePlugin } from './index.ts';

export const openApiRoutes: RoutePlugin = (app) => {
  app.get('/v2/openapi.json', () => openApiDocument());
};
