// Every page is prerendered (server-rendered HTML), then hydrated in the browser.
export const prerender = true;
export const trailingSlash = 'always';
