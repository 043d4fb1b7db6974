// Password hashing with node:crypto's scrypt (memory-hard; no native add-on to build).
// Parameters: N = 2^15, r = 8, p = 1 (32 MiB and a few tens of milliseconds per hash on
// this class of machine: OWASP's floor is N = 2^17 with r = 8 for scrypt in 2024, which
// at 128 MiB per sign-in is more than a small self-hosted console should spend; the
// parameters travel with each hash, so raising them later needs no migration). A 16-byte
// random salt, a 32-byte key, compared in constant time.
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const scrypt = (password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> =>
  new Promise((resolve, reject) => scryptCb(password.normalize('NFKC'), salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))));

export const SCRYPT_PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const MAX_MEMORY = 128 * 1024 * 1024;

/** `scrypt$<N>$<r>$<p>$<salt, base64url>$<key, base64url>` */
export async function hashPassword(password: string, params: { N: number; r: number; p: number } = SCRYPT_PARAMS): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LENGTH, { ...params, maxmem: MAX_MEMORY });
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `password` matches `stored`; false for a malformed hash, never an exception. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  if (expected.length !== KEY_LENGTH) return false;
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), KEY_LENGTH, { N: Number(n), r: Number(r), p: Number(p), maxmem: MAX_MEMORY });
  return timingSafeEqual(actual, expected);
}

/**
 * A hash of a password nobody has, made once: verifying against it when the email is
 * unknown costs the same time as a real check, so timing does not tell which emails exist.
 */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(24).toString('base64url'));
  return decoy;
}
