/**
 * The Plotly the charts load: plotly.js's core (the plot API, cartesian axes, legend, hover,
 * modebar and the scatter trace) with only the other trace types the chart builders draw,
 * bar and box. A prebuilt bundle carries a dozen more (heatmap, histogram, contour, pie,
 * violin…) whose code the browser would download, parse and run on every chart page.
 * A chart drawing another trace type must register it here (src/app/chart-trace-types.test.tsx checks).
 */
import Plotly from 'plotly.js/lib/core';
import bar from 'plotly.js/lib/bar';
import box from 'plotly.js/lib/box';

Plotly.register([bar, box]);

export default Plotly;
