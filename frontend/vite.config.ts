/// <reference types="vitest/config" />
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { withoutMapStyles } from './vite.plotly';

const backend = process.env.LATENCYLAB_BACKEND_URL ?? 'http://127.0.0.1:8000';

// The routes that draw charts (src/app/router.tsx wraps them in PreloadPlotly): a comparison, a
// shared report, trends; not /comparisons/new or /comparisons/new/har.
const CHART_PATHS = String.raw`^/(?:r/[^/]+|trends|comparisons/(?!new(?:/|$))[^/]+)/?$`;

/**
 * On chart pages the browser starts fetching and compiling Plotly's chunk with the HTML, in
 * parallel with the app's own bundle, instead of after that bundle has run and the page has
 * mounted. A tiny external script (the CSP allows no inline script) adds the modulepreload
 * only on chart routes, so other pages still never download Plotly.
 */
function preloadPlotlyOnChartPages(): Plugin {
  return {
    name: 'latencylab:preload-plotly-on-chart-pages',
    apply: 'build',
    enforce: 'post',
    generateBundle(_options, bundle) {
      const plotly = Object.values(bundle).find(
        (file) => file.type === 'chunk' && Object.keys(file.modules).some((id) => id.includes('plotly-charts')),
      );
      const html = bundle['index.html'];
      if (!plotly || html?.type !== 'asset') return;
      const source =
        `if (new RegExp(${JSON.stringify(CHART_PATHS)}).test(location.pathname)) {\n` +
        `  var link = document.createElement('link');\n` +
        `  link.rel = 'modulepreload'; link.crossOrigin = ''; link.href = ${JSON.stringify(`/${plotly.fileName}`)};\n` +
        `  document.head.appendChild(link);\n}\n`;
      const script = this.getFileName(this.emitFile({ type: 'asset', name: 'preload-charts.js', source }));
      html.source = String(html.source).replace('</title>', `</title>\n    <script async src="/${script}"></script>`);
    },
  };
}

export default defineConfig({
  base: '/',
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  // No React plugin: esbuild's automatic JSX runtime is all this app needs.
  esbuild: { jsx: 'automatic' },
  plugins: [withoutMapStyles(), preloadPlotlyOnChartPages()],
  server: {
    proxy: { '/api': { target: backend, changeOrigin: false } },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Plotly is one lazily loaded ~4.5 MB chunk; everything else stays small.
    chunkSizeWarningLimit: 5000,
    rollupOptions: {
      onwarn(warning, warn) {
        // React Server Components' "use client" markers mean nothing in a client-only bundle.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
  test: {
    environment: 'jsdom',
    setupFiles: ['./src/testing/setup-tests.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    restoreMocks: true,
  },
});
