// Where the CLI finds its API URL and key: TRAWL_API_URL / TRAWL_API_KEY first, then the
// file `trawl login` writes in the user's config directory (mode 0600 in a 0700 folder,
// since it holds a credential).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_API_URL } from '../sdk/client.js';

export interface CliConfig { apiUrl: string; apiKey?: string; source: 'env' | 'file' | 'none' }

/** The user's config directory: $XDG_CONFIG_HOME, %APPDATA% or ~/Library/Application Support, else ~/.config. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TRAWL_CONFIG_DIR) return env.TRAWL_CONFIG_DIR;
  if (env.XDG_CONFIG_HOME) return path.join(env.XDG_CONFIG_HOME, 'trawl');
  if (process.platform === 'win32' && env.APPDATA) return path.join(env.APPDATA, 'trawl');
  if (process.platform === 'darwin') return path.join(os.homedir(), 'Library', 'Application Support', 'trawl');
  return path.join(os.homedir(), '.config', 'trawl');
}

export const configFile = (env: NodeJS.ProcessEnv = process.env): string => path.join(configDir(env), 'config.json');

export function loadConfig(env: NodeJS.ProcessEnv = process.env): CliConfig {
  let saved: { apiUrl?: string; apiKey?: string } = {};
  try {
    saved = JSON.parse(fs.readFileSync(configFile(env), 'utf8')) as typeof saved;
  } catch { /* no login yet */ }
  const apiKey = env.TRAWL_API_KEY || saved.apiKey;
  const apiUrl = env.TRAWL_API_URL || saved.apiUrl || DEFAULT_API_URL;
  const source = env.TRAWL_API_KEY ? 'env' : saved.apiKey ? 'file' : 'none';
  return { apiUrl, ...(apiKey ? { apiKey } : {}), source };
}

export function saveConfig(config: { apiUrl: string; apiKey: string }, env: NodeJS.ProcessEnv = process.env): string {
  const file = configFile(env);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // Written to a private temp file and renamed, so the key is never readable by others, even for a moment.
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
  return file;
}

export function removeConfig(env: NodeJS.ProcessEnv = process.env): boolean {
  try { fs.unlinkSync(configFile(env)); return true; } catch { return false; }
}
