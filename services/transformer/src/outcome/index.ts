// The page outcome (docs/api.md "Page outcome"): signals read from the untouched document
// (signals.ts), weighed by the pure classifier (classify.ts).
export { classifyPage } from './classify.js';
export { readSignals, type PageSignals, type ResponseFacts } from './signals.js';
