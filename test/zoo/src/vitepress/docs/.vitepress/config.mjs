export default { title: 'Harbour notes', description: 'A docs site built by VitePress', cleanUrls: false };
