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
