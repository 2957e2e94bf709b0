/// <reference types="vitest/config" />
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { compilePlotlyEagerly, withoutMapStyles } from './vite.plotly';
import { firstLoad } from './vite.first-load';

const backend = process.env.LATENCYLAB_BACKEND_URL ?? 'http://127.0.0.1:8000';

export default defineConfig({
  base: '/',
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  // No React plugin: esbuild's automatic JSX runtime is all this app needs.
  esbuild: { jsx: 'automatic' },
  plugins: [withoutMapStyles(), compilePlotlyEagerly(), firstLoad()],
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
    // A test's time limit only catches a hang: it never judges speed, and make test runs these
    // tests beside other suites on a loaded two-core machine (docs/architecture.md, "Deterministic
    // tests"). Files do not set their own lower limits.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
