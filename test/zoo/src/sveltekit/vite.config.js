import adapter from '@sveltejs/adapter-static';
import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vite';
// Every page prerendered (server-rendered HTML with its data inlined), hydrated in the browser.
export default defineConfig({
  plugins: [sveltekit({ adapter: adapter(), prerender: { entries: ['*'] } })],
  server: { fs: { allow: ['..'] } },
});
