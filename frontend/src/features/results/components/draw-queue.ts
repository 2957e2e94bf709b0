/**
 * Draws a page's charts one at a time instead of all in one long task: a Plotly draw takes
 * ~100–200 ms of main thread, so a page of a dozen charts drawn together shows nothing (and
 * answers no click) until the last is done. Charts near the viewport go first, then the
 * rest in page order, so the first screen is drawn early and every chart is still drawn
 * without scrolling (tests, screenshots and the PDF printer see all of them). Between two
 * draws the browser gets a turn to paint and handle input.
 */

type Job = { draw: () => Promise<unknown>; near: boolean };

/** How far outside the viewport a chart counts as "about to be seen". */
const NEAR_MARGIN = '200px 0px';

const pending = new Map<Element, Job>();
let drawing = false;
let pumpQueued = false;
let observer: IntersectionObserver | undefined;

function nearViewport(): IntersectionObserver | undefined {
  // jsdom and very old browsers have no IntersectionObserver: page order alone then.
  if (typeof IntersectionObserver === 'undefined') return undefined;
  observer ??= new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        const job = pending.get(entry.target);
        if (job) job.near = entry.isIntersecting;
      }
      queuePump();
    },
    { rootMargin: NEAR_MARGIN },
  );
  return observer;
}

function inPageOrder(a: Element, b: Element): number {
  return a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1;
}

function nextElement(): Element | undefined {
  const elements = [...pending.keys()].sort(inPageOrder);
  return elements.find((element) => pending.get(element)?.near) ?? elements[0];
}

function queuePump(): void {
  if (pumpQueued) return;
  pumpQueued = true;
  // A macrotask, not a microtask: the browser paints what was drawn and handles input first.
  setTimeout(pump, 0);
}

function pump(): void {
  pumpQueued = false;
  if (drawing) return;
  const element = nextElement();
  if (!element) return;
  const job = pending.get(element) as Job;
  forget(element);
  drawing = true;
  void job
    .draw()
    .catch(() => undefined) // the chart shows its own error; the queue goes on
    .finally(() => {
      drawing = false;
      queuePump();
    });
}

function forget(element: Element): void {
  pending.delete(element);
  observer?.unobserve(element);
}

/**
 * Queues `draw` for the chart in `element` (replacing a draw still waiting for it). Returns a
 * function that takes it off the queue (a draw already started is not interrupted: `draw`
 * itself checks whether it is still wanted).
 */
export function queueDraw(element: Element, draw: () => Promise<unknown>): () => void {
  const job: Job = { draw, near: pending.get(element)?.near ?? false };
  const known = pending.has(element);
  pending.set(element, job);
  if (!known) nearViewport()?.observe(element);
  queuePump();
  return () => {
    if (pending.get(element) === job) forget(element);
  };
}
