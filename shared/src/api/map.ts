// POST /map (spec "Map"): the request with its defaults, and the answer.
import { Type, type Static } from '@sinclair/typebox';

export const MAP_REQUEST_DEFAULTS = { limit: 5000, ignoreSitemap: false, includeSubdomains: false } as const;

export const MapRequestSchema = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 8192, description: 'Website base URL' }),
    search: Type.Optional(Type.String({ maxLength: 1000, description: 'Keep only URLs containing every word (case-insensitive); matches are ranked' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: MAP_REQUEST_DEFAULTS.limit, description: 'Maximum URLs returned' })),
    ignoreSitemap: Type.Optional(Type.Boolean({ default: MAP_REQUEST_DEFAULTS.ignoreSitemap, description: 'Skip the sitemap; use browser crawling only' })),
    includeSubdomains: Type.Optional(Type.Boolean({ default: MAP_REQUEST_DEFAULTS.includeSubdomains, description: 'Include subdomain URLs' })),
  },
  { additionalProperties: false },
);
export type MapRequest = Static<typeof MapRequestSchema>;

export const MapResultSchema = Type.Object({
  links: Type.Array(Type.String()),
  count: Type.Integer({ minimum: 0 }),
});
export type MapResult = Static<typeof MapResultSchema>;
