// The "next steps" panel shown once after sign-up (GET /console/keys?welcome=1): a key, the
// playground, the CLI's login, and the MCP configuration for common agents (Claude
// Desktop, Cursor), with the server's URL filled in. The key itself is never on the page:
// the MCP snippet names where it goes.
import { html, type SafeHtml } from '../html.js';

export interface WelcomeOptions {
  baseUrl: string;
  plan: string;
  topPlan: boolean;
  admin: boolean;
  /** Operator keys (npm start's) that joined this account: ids and labels. */
  adopted: { id: string; label: string }[];
}

/** Claude Desktop's claude_desktop_config.json and Cursor's .cursor/mcp.json take the same shape. */
export function mcpConfig(baseUrl: string): string {
  return JSON.stringify({ mcpServers: { trawl: { command: 'npx', args: ['trawl', 'mcp'], env: { TRAWL_API_URL: baseUrl, TRAWL_API_KEY: 'trawl_… (your key)' } } } }, null, 2);
}

export function welcomePanel(o: WelcomeOptions): SafeHtml {
  const planLine = o.topPlan
    ? html`Your account is on the <strong>${o.plan}</strong> plan, the largest one.`
    : html`Your account is on the <strong>${o.plan}</strong> plan. ${o.admin ? html`Change it on the <a href="/console/admin">Admin</a> page (Set plan).` : 'An admin of this server can change it.'}`;
  return html`<section class="panel notice good" aria-labelledby="next-steps" data-testid="next-steps"><h2 id="next-steps">Welcome: next steps</h2>
<p>${planLine}</p>
<ol class="steps">
<li>${o.adopted.length
    ? html`<strong>Your keys.</strong> The key${o.adopted.length === 1 ? '' : 's'} that <code>npm start</code> made ${o.adopted.length === 1 ? 'is' : 'are'} in your account now (${o.adopted.map((k, i) => html`${i ? ', ' : ''}<span class="mono">${k.id}</span>`)}): the jobs and usage of the CLI, the SDK and the MCP server with ${o.adopted.length === 1 ? 'it' : 'them'} show under Jobs and Usage. Or create a key below and copy it: it is shown once.`
    : html`<strong>Create a key</strong> below and copy it: it is shown once.`}</li>
<li><strong>Try it</strong> in the <a href="/console/playground">playground</a>: scrape, crawl, map, batch and extract, with the same request as code.</li>
<li><strong>The CLI:</strong> <code>npx trawl login --api-url ${o.baseUrl}</code> (it asks for the key), then <code>npx trawl scrape https://example.com</code>.</li>
<li><strong>An agent (MCP):</strong> add this to Claude Desktop's <code>claude_desktop_config.json</code> or Cursor's <code>.cursor/mcp.json</code>, with your key:
<div class="code"><pre id="mcp-config">${mcpConfig(o.baseUrl)}</pre><button type="button" class="secondary" data-copy="mcp-config" hidden>Copy the MCP config</button></div></li>
</ol></section>`;
}
