// The app build's first-load script: src/app/first-load/start-first-load.ts, compiled on its own
// into a classic script the HTML loads first, with the table of chart pages and their built files.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transformWithEsbuild, type Plugin, type Rollup } from 'vite';
import { FIRST_LOAD_PAGES } from './src/app/first-load/pages';
import type { BuiltFirstLoadPage } from './src/app/first-load/start-first-load';

const SCRIPT = fileURLToPath(new URL('./src/app/first-load/start-first-load.ts', import.meta.url));

/**
 * On chart pages the browser sends the page's API requests and starts fetching and compiling
 * Plotly's chunk and the page's chunks (and stylesheets) with the HTML, in parallel with the app's
 * own bundle, instead of after that bundle has run, the router has asked for the page and the page
 * has mounted. The script (external: the CSP allows no inline script) acts only on those routes,
 * so other pages still never download Plotly.
 */
export function firstLoad(): Plugin {
  return {
    name: 'latencylab:first-load',
    apply: 'build',
    enforce: 'post',
    async generateBundle(_options, bundle) {
      const html = bundle['index.html'];
      const plotly = chunks(bundle).find((chunk) => Object.keys(chunk.modules).some((id) => id.includes('plotly-charts')));
      if (!plotly || html?.type !== 'asset') return;
      const pages: BuiltFirstLoadPage[] = FIRST_LOAD_PAGES.map((page) => {
        const chunk = chunks(bundle).find((candidate) => candidate.facadeModuleId?.endsWith(`/${page.page}`));
        if (!chunk) this.error(`no chunk for ${page.page}: is it still loaded lazily by src/app/router.tsx?`);
        const files = [...withImports(bundle, chunk.fileName)];
        // The page's stylesheets too: Vite's loader waits for them before it runs the page.
        const styles = files.flatMap((file) => [...(chunkNamed(bundle, file)?.viteMetadata?.importedCss ?? [])]);
        return { ...page, modules: [plotly.fileName, ...files].map((file) => `/${file}`), styles: styles.map((file) => `/${file}`) };
      });
      const compiled = await transformWithEsbuild(await readFile(SCRIPT, 'utf8'), SCRIPT, {
        format: 'iife',
        globalName: 'firstLoad',
        minify: true,
        target: 'es2017',
      });
      // Wrapped once more so that nothing is left on `window` but the answers it waits with.
      const source = `(function () {\n${compiled.code}firstLoad.startFirstLoad(${JSON.stringify(pages)});\n})();\n`;
      const script = this.getFileName(this.emitFile({ type: 'asset', name: 'first-load.js', source }));
      html.source = String(html.source).replace('</title>', `</title>\n    <script async src="/${script}"></script>`);
    },
  };
}

const chunks = (bundle: Rollup.OutputBundle): Rollup.OutputChunk[] =>
  Object.values(bundle).filter((file): file is Rollup.OutputChunk => file.type === 'chunk');

const chunkNamed = (bundle: Rollup.OutputBundle, fileName: string) => chunks(bundle).find((chunk) => chunk.fileName === fileName);

/** A page's chunk and the chunks it imports, but not the entry, which the HTML loads anyway. */
function withImports(bundle: Rollup.OutputBundle, fileName: string, seen = new Set<string>()): Set<string> {
  if (seen.has(fileName) || chunkNamed(bundle, fileName)?.isEntry) return seen;
  seen.add(fileName);
  for (const imported of chunkNamed(bundle, fileName)?.imports ?? []) withImports(bundle, imported, seen);
  return seen;
}
