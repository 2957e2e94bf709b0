// Build settings both Vite configs share for the charts' Plotly (src/features/results/components/plotly-charts.ts),
// which is built from plotly.js's sources rather than a prebuilt bundle.
import type { Plugin } from 'vite';

const MAP_STYLES = 'maplibre-gl/dist/maplibre-gl.css';
const NO_STYLES = '\0latencylab:no-map-styles';

/**
 * plotly.js's trace registry imports maplibre's 65 KB stylesheet for map subplots, which no
 * chart here draws: without this, every chart page would fetch it beside Plotly's chunk.
 */
export function withoutMapStyles(): Plugin {
  return {
    name: 'latencylab:without-map-styles',
    enforce: 'pre',
    resolveId: (id) => (id === MAP_STYLES ? NO_STYLES : null),
    load: (id) => (id === NO_STYLES ? '' : null),
  };
}

/**
 * Marks Plotly's chunk for eager compilation (V8's explicit compile hint, `//# allFunctionsCalledOnLoad`
 * as the file's first line): a chart page calls most of its functions while drawing its first charts,
 * and V8 would otherwise compile each one lazily, on the main thread, the first time a chart calls it
 * (half the time of a page's first dozen draws). Eagerly, V8 compiles them as it compiles the chunk,
 * while the page waits for its data. Engines without the hint read a comment. Runs on the final code:
 * the minifier would drop a comment added earlier.
 */
export function compilePlotlyEagerly(): Plugin {
  return {
    name: 'latencylab:compile-plotly-eagerly',
    apply: 'build',
    enforce: 'post',
    generateBundle(_options, bundle) {
      for (const file of Object.values(bundle)) {
        if (file.type === 'chunk' && Object.keys(file.modules).some((id) => id.endsWith('/plotly-charts.ts'))) {
          file.code = `//# allFunctionsCalledOnLoad\n${file.code}`;
        }
      }
    },
  };
}
