import { afterEach, describe, expect, it, vi } from 'vitest';
import { answerEarly, EARLY_RESPONSE_MAX_AGE_MS } from './early-responses';

const STORE = '__latencylabEarlyResponses';
const url = (path: string) => new URL(path, location.origin).toString();

const SENT_AT = '__latencylabEarlyResponsesSentAt';

/** What the first script leaves: the answers, and when it asked for them (now). */
function leaveEarly(answers: Record<string, Response | null>): number {
  const sentAt = performance.now();
  (window as unknown as Record<string, unknown>)[STORE] = Object.fromEntries(
    Object.entries(answers).map(([path, response]) => [path, Promise.resolve(response)]),
  );
  (window as unknown as Record<string, unknown>)[SENT_AT] = sentAt;
  return sentAt;
}

const send = () => vi.fn((request: Request) => Promise.resolve(new Response(`sent ${new URL(request.url).pathname}`)));

afterEach(() => {
  delete (window as unknown as Record<string, unknown>)[STORE];
  delete (window as unknown as Record<string, unknown>)[SENT_AT];
});

describe('answers the first script sent', () => {
  it('answer the same GET once; the next one is sent', async () => {
    leaveEarly({ '/api/v1/comparisons/c1?x=1': new Response('early') });
    const sender = send();
    expect(await (await answerEarly(new Request(url('/api/v1/comparisons/c1?x=1')), sender)).text()).toBe('early');
    expect(await (await answerEarly(new Request(url('/api/v1/comparisons/c1?x=1')), sender)).text()).toBe('sent /api/v1/comparisons/c1');
    expect(sender).toHaveBeenCalledTimes(1);
  });

  it('never answer another query or another origin', async () => {
    leaveEarly({ '/api/v1/comparisons/c1': new Response('early') });
    const sender = send();
    await answerEarly(new Request(url('/api/v1/comparisons/c1?x=1')), sender);
    await answerEarly(new Request('https://elsewhere.example/api/v1/comparisons/c1'), sender);
    expect(sender).toHaveBeenCalledTimes(2);
  });

  it('an error is asked again: signed out at first, the visitor signs in and the page asks anew', async () => {
    leaveEarly({ '/api/v1/comparisons/c1': new Response('{"detail":"Authentication credentials were not provided."}', { status: 403 }) });
    const sender = send();
    const answer = await answerEarly(new Request(url('/api/v1/comparisons/c1')), sender);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe('sent /api/v1/comparisons/c1');
  });

  it('are all dropped by any other method (signing in, a change): they may describe the state before it', async () => {
    leaveEarly({ '/api/v1/comparisons/c1': new Response('early'), '/api/v1/auth/me': new Response('early') });
    const sender = send();
    await answerEarly(new Request(url('/api/v1/auth/login'), { method: 'POST', body: '{}' }), sender);
    expect(await (await answerEarly(new Request(url('/api/v1/comparisons/c1')), sender)).text()).toBe('sent /api/v1/comparisons/c1');
    expect(sender).toHaveBeenCalledTimes(2);
  });

  it('are sent by the app where the first script chose not to ask', async () => {
    leaveEarly({ '/api/v1/comparisons/c1/verdict': null });
    const sender = send();
    expect(await (await answerEarly(new Request(url('/api/v1/comparisons/c1/verdict')), sender)).text()).toBe(
      'sent /api/v1/comparisons/c1/verdict',
    );
  });

  it('are stale a while after the first script asked: the app asks again', async () => {
    const sentAt = leaveEarly({ '/api/v1/comparisons/c1': new Response('early') });
    vi.spyOn(performance, 'now').mockReturnValue(sentAt + EARLY_RESPONSE_MAX_AGE_MS + 1);
    const sender = send();
    expect(await (await answerEarly(new Request(url('/api/v1/comparisons/c1')), sender)).text()).toBe('sent /api/v1/comparisons/c1');
  });

  it('are fresh however long the window lived before the first script asked (a test worker)', async () => {
    vi.spyOn(performance, 'now').mockReturnValue(60_000);
    leaveEarly({ '/api/v1/comparisons/c1': new Response('early') });
    const sender = send();
    expect(await (await answerEarly(new Request(url('/api/v1/comparisons/c1')), sender)).text()).toBe('early');
    expect(sender).not.toHaveBeenCalled();
  });

  it('without a first script (tests, other pages), every request is sent', async () => {
    const sender = send();
    await answerEarly(new Request(url('/api/v1/auth/me')), sender);
    expect(sender).toHaveBeenCalledTimes(1);
  });
});
