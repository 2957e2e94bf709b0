/// <reference types="vitest/config" />
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { compilePlotlyEagerly, withoutMapStyles } from './vite.plotly';

const backend = process.env.LATENCYLAB_BACKEND_URL ?? 'http://127.0.0.1:8000';

// The routes that draw charts (src/app/router.tsx wraps them in PreloadPlotly), each with its page's
// module: a comparison, a shared report, trends; not /comparisons/new or /comparisons/new/har.
const CHART_PAGES: [path: string, page: string][] = [
  [String.raw`^/comparisons/(?!new(?:/|$))[^/]+/?$`, 'src/app/routes/comparison.tsx'],
  [String.raw`^/r/[^/]+/?$`, 'src/app/routes/public-report.tsx'],
  [String.raw`^/trends/?$`, 'src/app/routes/trends.tsx'],
];

/**
 * On chart pages the browser starts fetching and compiling the page's chunks (and stylesheets) and Plotly's with
 * the HTML, in parallel with the app's own bundle, instead of after that bundle has run, the
 * router has asked for the page and the page has mounted. A tiny external script (the CSP allows
 * no inline script) adds the modulepreloads only on those routes, so other pages still never
 * download Plotly.
 */
function preloadChartPages(): Plugin {
  return {
    name: 'latencylab:preload-chart-pages',
    apply: 'build',
    enforce: 'post',
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).filter((file) => file.type === 'chunk');
      const plotly = chunks.find((chunk) => Object.keys(chunk.modules).some((id) => id.includes('plotly-charts')));
      const html = bundle['index.html'];
      if (!plotly || html?.type !== 'asset') return;
      const entry = chunks.find((chunk) => chunk.isEntry);
      // A page's chunk and the chunks it imports, but not the entry, which the HTML loads anyway.
      const withImports = (fileName: string, seen = new Set<string>()): Set<string> => {
        if (seen.has(fileName) || fileName === entry?.fileName) return seen;
        seen.add(fileName);
        for (const imported of chunks.find((chunk) => chunk.fileName === fileName)?.imports ?? []) withImports(imported, seen);
        return seen;
      };
      const table = CHART_PAGES.map(([path, page]) => {
        const chunk = chunks.find((candidate) => candidate.facadeModuleId?.endsWith(`/${page}`));
        if (!chunk) this.error(`no chunk for ${page}: is it still loaded lazily by src/app/router.tsx?`);
        const files = [...withImports(chunk.fileName)];
        // The page's stylesheets too: Vite's loader waits for them before it runs the page.
        const styles = files.flatMap((file) => [...(chunks.find((c) => c.fileName === file)?.viteMetadata?.importedCss ?? [])]);
        return [path, [...files, plotly.fileName].map((file) => `/${file}`), styles.map((file) => `/${file}`)];
      });
      const source =
        `var pages = ${JSON.stringify(table)};\n` +
        `for (var i = 0; i < pages.length; i++) {\n` +
        `  if (!new RegExp(pages[i][0]).test(location.pathname)) continue;\n` +
        `  pages[i][1].forEach(function (href) {\n` +
        `    var link = document.createElement('link');\n` +
        `    link.rel = 'modulepreload'; link.crossOrigin = ''; link.href = href;\n` +
        `    document.head.appendChild(link);\n` +
        `  });\n` +
        `  pages[i][2].forEach(function (href) {\n` +
        `    var link = document.createElement('link');\n` +
        `    link.rel = 'stylesheet'; link.crossOrigin = ''; link.href = href;\n` +
        `    document.head.appendChild(link);\n` +
        `  });\n` +
        `  break;\n}\n`;
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
  plugins: [withoutMapStyles(), compilePlotlyEagerly(), preloadChartPages()],
  server: {
    proxy: { '/api': { target: backend, changeOrigin: false } },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Plotly is one lazily loaded ~1.1 MB chunk; everything else stays small.
    chunkSizeWarningLimit: 1200,
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
