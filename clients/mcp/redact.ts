// Error text as the MCP server answers it, with no credential in it: the user:password of
// TRAWL_API_URL (which Node's fetch quotes whole when it refuses such a URL) and the API
// key. URL userinfo is masked wherever it appears; the known secrets also where they
// appear alone (those of 3 characters or more: masking every "a" would garble the text).
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#]*@/gi;
const MIN_SECRET_CHARS = 3;

export class Redactor {
  private readonly secrets: string[];

  constructor(apiUrl: string, extraSecrets: readonly (string | undefined)[] = []) {
    const found: string[] = [];
    try {
      const url = new URL(apiUrl);
      for (const part of [url.username, url.password]) {
        found.push(part);
        try { found.push(decodeURIComponent(part)); } catch { /* not %-encoded: the raw form is enough */ }
      }
    } catch { /* not a URL: the API answers that itself */ }
    for (const s of extraSecrets) if (s) found.push(s);
    // Longest first, so a secret that contains another is masked whole.
    this.secrets = [...new Set(found)].filter((s) => s.length >= MIN_SECRET_CHARS).sort((a, b) => b.length - a.length);
  }

  clean(text: string): string {
    let out = text.replace(USERINFO, '$1***@');
    for (const secret of this.secrets) out = out.replaceAll(secret, '***');
    return out;
  }
}
