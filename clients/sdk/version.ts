// The clients' version, sent in User-Agent and printed by `trawl --version`. Kept equal to
// package.json's by test/unit/clients/version.test.ts.
export const CLIENT_VERSION = '0.1.0';
