// The services `npm start` runs, in start order. Under `npm start` with a HEALTH_PORT base,
// service i (its index here) serves its health and metrics on HEALTH_PORT + i.
export const SERVICES = ['projector', 'fetcher', 'transformer', 'crawler-frontier', 'webhook-dispatcher', 'gateway'] as const;
export type ServiceName = (typeof SERVICES)[number];
