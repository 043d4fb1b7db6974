// App router, static export: server components rendered to HTML, the RSC payload inlined
// in self.__next_f.push scripts, hydrated in the browser.
module.exports = { output: 'export', trailingSlash: true };
