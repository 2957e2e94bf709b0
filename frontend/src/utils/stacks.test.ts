import { describe, expect, it } from 'vitest';
import {
  armLegend,
  clientLabel,
  clientStackEntries,
  serverHeaderNote,
  serverLabel,
  serverStackEntries,
  stackEntriesText,
} from './stacks';

const hostH3 = { platform: 'host', device: 'Linux x86_64', stack: 'latencylab-probe 0.1.0 (aioquic 1.2.0)' };
const pixelH3 = { platform: 'android', device: 'Pixel 8', stack: 'cronet 128' };
const reference = { target: 'reference', software: 'latencylab-target 0.1.0 (quic-go 0.65.0)', server_headers: null };
const nginx = { target: 'customer', software: null, server_headers: ['nginx/1.25.3'] };

describe('stack labels', () => {
  it('names the probe by the library under the protocol, a phone by its model', () => {
    expect(clientLabel(hostH3)).toBe('aioquic 1.2.0 (host)');
    expect(clientLabel(pixelH3)).toBe('cronet 128 (Pixel 8)');
  });

  it('tells the reference target from a customer server, by its Server header when it sent one', () => {
    expect(serverLabel(reference)).toBe('reference target (quic-go 0.65.0)');
    expect(serverLabel({ ...reference, software: null })).toBe('reference target');
    expect(serverLabel(nginx)).toBe('your server: nginx/1.25.3');
    expect(serverLabel({ ...nginx, server_headers: [] })).toBe('your server');
    expect(serverHeaderNote(nginx)).toBe('Server: nginx/1.25.3');
    expect(serverHeaderNote({ ...nginx, server_headers: [] })).toBe('no Server header sent');
    expect(serverHeaderNote(reference)).toBe('Server header not read');
  });

  it('says an arm in one quotable line', () => {
    expect(armLegend('h3', [hostH3, pixelH3, { ...pixelH3, device: 'Pixel 8' }], [reference])).toBe(
      'h3 — aioquic 1.2.0 (host) · cronet 128 (Pixel 8) → reference target (quic-go 0.65.0)',
    );
    expect(armLegend('mine', [], [])).toBe('mine — client not reported yet');
  });

  it("reads a run's fingerprint fields, ignoring what is not a stack", () => {
    const clients = clientStackEntries({ h2: 'okhttp 5.1.0', h3: 'cronet 128', h1: 7 });
    expect(clients).toEqual([
      ['h2', 'okhttp 5.1.0'],
      ['h3', 'cronet 128'],
    ]);
    expect(stackEntriesText(clients)).toBe('h2 okhttp 5.1.0 · h3 cronet 128');
    expect(clientStackEntries(undefined)).toEqual([]);
    expect(clientStackEntries(['okhttp'])).toEqual([]);
    expect(serverStackEntries({ h3: reference, mine: nginx, junk: 'x' })).toEqual([
      ['h3', 'reference target (quic-go 0.65.0)'],
      ['mine', 'your server: nginx/1.25.3'],
    ]);
    expect(stackEntriesText(serverStackEntries({}))).toBeNull();
  });
});
