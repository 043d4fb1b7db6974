// Paths of the deployment files, found from this file whether it runs from test/ (tsx)
// or from dist/test/ (npm test): the repo root is the nearest folder with package.json.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return dir;
})();

export const CHART_DIR = path.join(REPO_ROOT, 'deploy/helm/trawl');
export const DEV_VALUES = path.join(CHART_DIR, 'values-dev.yaml');

export function readRepoFile(relative: string): string {
  return fs.readFileSync(path.join(REPO_ROOT, relative), 'utf8');
}

/** The services, each its own Deployment: `node dist/services/<name>/src/main.js`. */
export const SERVICES = ['gateway', 'fetcher', 'transformer', 'projector', 'crawler-frontier', 'webhook-dispatcher'] as const;
