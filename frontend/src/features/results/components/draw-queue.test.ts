import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

type Deferred = { promise: Promise<void>; resolve: () => void };
const deferred = (): Deferred => {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
};

/** jsdom has no IntersectionObserver: this one reports what the test says is near the viewport. */
class TestObserver {
  static latest: TestObserver | undefined;
  readonly observed = new Set<Element>();
  constructor(private readonly callback: IntersectionObserverCallback) {
    TestObserver.latest = this;
  }
  observe(element: Element) {
    this.observed.add(element);
  }
  unobserve(element: Element) {
    this.observed.delete(element);
  }
  disconnect() {}
  report(element: Element, isIntersecting: boolean) {
    this.callback([{ target: element, isIntersecting } as IntersectionObserverEntry], this as unknown as IntersectionObserver);
  }
}

/** A fresh queue (its state is per module) and `count` charts in page order. */
async function setUp(count: number) {
  vi.resetModules();
  const { queueDraw } = await import('./draw-queue');
  document.body.innerHTML = '';
  const charts = Array.from({ length: count }, (_, index) => {
    const element = document.createElement('div');
    element.dataset['chart'] = String(index);
    document.body.append(element);
    return element;
  });
  const started: number[] = [];
  const draws = charts.map(() => deferred());
  const queue = (index: number) =>
    queueDraw(charts[index] as Element, () => {
      started.push(index);
      return (draws[index] as Deferred).promise;
    });
  return { charts, started, draws, queue };
}

/** Lets the queue's timers and promise callbacks run. */
const settle = async () => {
  for (let turn = 0; turn < 5; turn += 1) await vi.advanceTimersByTimeAsync(1);
};

describe('draw queue', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.stubGlobal('IntersectionObserver', TestObserver);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('draws one chart at a time, in page order, each after the previous one is done', async () => {
    const { started, draws, queue } = await setUp(3);
    queue(2);
    queue(0);
    queue(1);
    expect(started).toEqual([]); // not inside the render that queued them
    await settle();
    expect(started).toEqual([0]);
    draws[0]?.resolve();
    await settle();
    expect(started).toEqual([0, 1]);
    draws[1]?.resolve();
    await settle();
    expect(started).toEqual([0, 1, 2]);
  });

  it('draws the charts near the viewport first, then the rest without scrolling', async () => {
    const { charts, started, draws, queue } = await setUp(4);
    for (const index of [0, 1, 2, 3]) queue(index);
    const observer = TestObserver.latest as TestObserver;
    expect(observer.observed.size).toBe(4);
    observer.report(charts[2] as Element, true);
    observer.report(charts[3] as Element, true);
    await settle();
    expect(started).toEqual([2]);
    draws[2]?.resolve();
    await settle();
    draws[3]?.resolve();
    await settle();
    draws[0]?.resolve();
    await settle();
    expect(started).toEqual([2, 3, 0, 1]);
    // A drawn chart is no longer watched.
    expect(observer.observed.has(charts[2] as Element)).toBe(false);
  });

  it('skips a chart taken off the queue', async () => {
    const { started, draws, queue } = await setUp(3);
    queue(0);
    const unqueue = queue(1);
    queue(2);
    unqueue();
    await settle();
    draws[0]?.resolve();
    await settle();
    expect(started).toEqual([0, 2]);
  });

  it('replaces a chart’s waiting draw with its newer one, and goes on after a draw that fails', async () => {
    vi.resetModules();
    const { queueDraw } = await import('./draw-queue');
    const element = document.createElement('div');
    document.body.append(element);
    const calls: string[] = [];
    queueDraw(element, () => {
      calls.push('old data');
      return Promise.resolve();
    });
    queueDraw(element, () => {
      calls.push('new data');
      return Promise.reject(new Error('Plotly failed'));
    });
    await settle();
    expect(calls).toEqual(['new data']);
    const next = document.createElement('div');
    document.body.append(next);
    queueDraw(next, () => {
      calls.push('next chart');
      return Promise.resolve();
    });
    await settle();
    expect(calls).toEqual(['new data', 'next chart']);
  });
});
