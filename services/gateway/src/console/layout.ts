// The page frame: head with the one stylesheet and script, skip link, navigation that
// marks the current page, who is signed in and a sign-out form (a POST with its CSRF token).
import { html, type SafeHtml } from './html.js';

export interface Viewer {
  accountId: string;
  email: string;
  role: 'admin' | 'member';
  plan: string;
  csrf: string;
}

const NAV = [
  { href: '/console/keys', label: 'API keys', id: 'keys' },
  { href: '/console/jobs', label: 'Jobs', id: 'jobs' },
  { href: '/console/usage', label: 'Usage', id: 'usage' },
  { href: '/console/monitors', label: 'Monitors', id: 'monitors' },
  { href: '/console/playground', label: 'Playground', id: 'playground' },
  { href: '/console/api', label: 'API reference', id: 'api' },
] as const;

export function page(opts: { title: string; current?: string; viewer?: Viewer | null; body: SafeHtml }): string {
  const { viewer } = opts;
  const items = viewer ? [...NAV, ...(viewer.role === 'admin' ? [{ href: '/console/admin', label: 'Admin', id: 'admin' }] : [])] : [];
  return `<!doctype html>${html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${opts.title} · Trawl console</title><link rel="stylesheet" href="/console/assets/console.css"><script src="/console/assets/console.js" defer></script></head>
<body><a class="skip" href="#main">Skip to content</a>
<header class="top"><a class="brand" href="/console">Trawl</a>
${items.length ? html`<nav class="main" aria-label="Console">${items.map((i) => html`<a href="${i.href}"${i.id === opts.current ? html` aria-current="page"` : ''}>${i.label}</a>`)}</nav>` : ''}
${viewer ? html`<div class="who"><span><span class="email">${viewer.email} · </span>${viewer.plan}${viewer.role === 'admin' ? ' · admin' : ''}</span>
<form class="inline" method="post" action="/console/signout"><input type="hidden" name="_csrf" value="${viewer.csrf}"><button class="secondary" type="submit">Sign out</button></form></div>` : ''}
</header>
<main id="main">${opts.body}</main></body></html>`}`;
}

/** A friendly page for an error of an HTML request. */
export function errorPage(status: number, title: string, detail: string, requestId: string, viewer?: Viewer | null): string {
  return page({
    title, viewer: viewer ?? null,
    body: html`<h1>${title}</h1><div class="panel notice bad"><p>${detail}</p>
<p class="muted small">Status ${status} · request id <code>${requestId}</code></p></div>
<nav aria-label="Where to go"><p class="actions">${viewer
      ? html`<a href="/console/jobs">Your jobs</a> <a href="/console/keys">API keys</a> <a href="/console/playground">Playground</a>`
      : html`<a href="/console/signin">Sign in</a>`} <a href="/console">The console's start</a></p></nav>`,
  });
}
