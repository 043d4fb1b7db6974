// Pages router, static export: server-rendered HTML with the page's props in __NEXT_DATA__.
module.exports = { output: 'export', trailingSlash: true };
