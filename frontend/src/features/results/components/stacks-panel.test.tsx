import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { resultsFixture } from '@/testing/fixtures';
import type { ComparisonResults } from '@/lib/api-types';
import { StacksPanel } from './stacks-panel';

/** One arm measured on the host and on a phone against the reference target; one against the customer's nginx. */
const mixed: ComparisonResults = {
  ...resultsFixture,
  arms: ['https-h1', 'h3', 'mine'],
  baseline_arm: 'https-h1',
  stacks: [
    {
      arm: 'https-h1',
      protocol: 'h1',
      clients: [{ platform: 'host', device: 'Linux x86_64', stack: 'latencylab-probe 0.1.0 (h11 0.16.0)', runs: 1 }],
      servers: [{ target: 'reference', software: 'latencylab-target 0.1.0 (h11 0.16.0)', server_headers: [], runs: 1 }],
    },
    {
      arm: 'h3',
      protocol: 'h3',
      clients: [
        { platform: 'host', device: 'Linux x86_64', stack: 'latencylab-probe 0.1.0 (aioquic 1.2.0)', runs: 1 },
        { platform: 'android', device: 'Pixel 8', stack: 'cronet 128', runs: 2 },
      ],
      servers: [
        { target: 'reference', software: 'latencylab-target 0.1.0 (quic-go 0.65.0)', server_headers: null, runs: 3 },
      ],
    },
    {
      arm: 'mine',
      protocol: 'h2',
      clients: [{ platform: 'host', device: 'Linux x86_64', stack: 'latencylab-probe 0.1.0 (h2 4.2.0)', runs: 1 }],
      servers: [{ target: 'customer', software: null, server_headers: ['nginx/1.25.3'], runs: 1 }],
    },
  ],
};

describe('stacks panel', () => {
  it('gives each arm a quotable legend line with its clients per device and its server', () => {
    render(<StacksPanel results={mixed} />);
    const legend = within(screen.getByRole('list', { name: 'Arm legend' })).getAllByRole('listitem');
    expect(legend.map((item) => item.textContent)).toEqual([
      'https-h1 — h11 0.16.0 (host) → reference target (h11 0.16.0)',
      'h3 — aioquic 1.2.0 (host) · cronet 128 (Pixel 8) → reference target (quic-go 0.65.0)',
      'mine — h2 4.2.0 (host) → your server: nginx/1.25.3',
    ]);
  });

  it('lists the full stacks per arm with what the Server header said and how many runs reported them', () => {
    render(<StacksPanel results={mixed} />);
    const h3 = screen.getByTestId('stacks-h3');
    expect(h3).toHaveTextContent('cronet 128 (Pixel 8) cronet 128 · android · 2 runs');
    expect(h3).toHaveTextContent('latencylab-target 0.1.0 (quic-go 0.65.0) · Server header not read · 3 runs');
    expect(screen.getByTestId('stacks-mine')).toHaveTextContent('your server: nginx/1.25.3 Server: nginx/1.25.3');
    expect(screen.getByTestId('stacks-https-h1')).toHaveTextContent('no Server header sent');
    expect(within(screen.getByTestId('stacks-https-h1')).getByText('baseline')).toHaveClass('tag');
  });

  it('waits for a finished run before naming anything', () => {
    const pending = { ...mixed, stacks: mixed.stacks.map((arm) => ({ ...arm, clients: [], servers: [] })) };
    render(<StacksPanel results={pending} />);
    expect(screen.getByText('The client and server of each arm appear once a run finishes.')).toBeInTheDocument();
    expect(screen.queryByRole('list', { name: 'Arm legend' })).not.toBeInTheDocument();
  });

  it('shows the stacks of the stored mid-image-series results (host probe, reference target)', () => {
    render(<StacksPanel results={resultsFixture} />);
    expect(screen.getByRole('heading', { name: 'Method: which client and server' })).toBeInTheDocument();
    expect(screen.getByText(/^h3 — quic-go 0\.65\.0 \(host\) → reference target \(quic-go 0\.65\.0\)$/)).toBeInTheDocument();
  });
});
