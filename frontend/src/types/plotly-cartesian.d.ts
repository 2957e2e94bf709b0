// plotly.js-cartesian-dist-min ships no types; it is plotly.js with fewer trace types, so its
// API is plotly.js's (the same declaration @types/plotly.js-dist-min makes for the full bundle).
declare module 'plotly.js-cartesian-dist-min' {
  import * as Plotly from 'plotly.js';
  export = Plotly;
}
