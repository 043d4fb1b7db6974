// The check a submitted URL passes before any job is created: http(s) syntax
// (INVALID_URL), then SSRF on the resolved addresses (URL_NOT_ALLOWED). A name that does
// not resolve is accepted: the job fails with NETWORK_ERROR, which is what happened.
import { NetworkError } from '../../../shared/src/domain/errors.js';
import { parseHttpUrl, resolveAllowed, type CidrRange, type Lookup } from '../../../shared/src/net/url-safety.js';

export interface UrlPolicy {
  allowCidrs: CidrRange[];
  lookup?: Lookup;
}

export async function checkSubmittedUrl(raw: string, policy: UrlPolicy, field = 'url'): Promise<URL> {
  const url = parseHttpUrl(raw, field);
  try {
    await resolveAllowed(url, policy.allowCidrs, policy.lookup);
  } catch (err) {
    if (!(err instanceof NetworkError)) throw err;
  }
  return url;
}
