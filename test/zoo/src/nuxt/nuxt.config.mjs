// Nuxt, server-rendered and prerendered (nuxt generate): SSR HTML with the payload in a
// __NUXT_DATA__ island, hydrated in the browser. (.mjs with a plain object: the project's
// tsc compiles test/**/*.ts and would not know Nuxt's globals.)
export default { compatibilityDate: '2026-01-01', devtools: { enabled: false }, telemetry: false };
