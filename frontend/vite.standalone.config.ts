/// <reference types="vitest/config" />
// The offline report's bundle (src/report-standalone.tsx): one classic script with every
// dependency inlined (Plotly too, no lazy chunks) and one stylesheet, written to
// dist/standalone/ for the backend to inline into a self-contained HTML file
// (backend/apps/reports/standalone.py). `npm run build` runs it after the app's build.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { withoutMapStyles } from './vite.plotly';

export default defineConfig({
  base: './',
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  esbuild: { jsx: 'automatic' },
  plugins: [withoutMapStyles()],
  publicDir: false,
  build: {
    outDir: 'dist/standalone',
    emptyOutDir: true,
    cssCodeSplit: false,
    chunkSizeWarningLimit: 6000,
    assetsInlineLimit: Number.MAX_SAFE_INTEGER,
    modulePreload: false,
    rollupOptions: {
      input: fileURLToPath(new URL('./src/report-standalone.tsx', import.meta.url)),
      output: {
        format: 'iife',
        inlineDynamicImports: true,
        entryFileNames: 'report.js',
        assetFileNames: (asset) => (asset.names?.some((name) => name.endsWith('.css')) ? 'report.css' : '[name][extname]'),
      },
      onwarn(warning, warn) {
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
});
