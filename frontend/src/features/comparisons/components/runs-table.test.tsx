import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { comparisonDetailFixture } from '@/testing/fixtures';
import type { Run } from '@/lib/api-types';
import { RunsTable } from './runs-table';

const [done, withArtifact] = comparisonDetailFixture.runs as [Run, Run];

describe('runs table', () => {
  it("marks a run measured on the phone simulator's JVM stand-in, and only that run", () => {
    const simulated: Run = { ...withArtifact, device: 'R5CT1234', device_model: 'Pixel 8', stand_in: 'jvm' };
    render(<RunsTable runs={[done, simulated]} />);
    expect(within(screen.getByTestId(`run-${simulated.id}`)).getByTestId('stand-in-tag')).toHaveTextContent(
      'simulated phone (JVM stand-in)',
    );
    expect(within(screen.getByTestId(`run-${done.id}`)).queryByTestId('stand-in-tag')).toBeNull();
  });

  it('lists each run with its device, client and server stacks, fingerprint and artifacts as download links', () => {
    const failedOnce: Run = {
      ...withArtifact,
      device: 'R5CT1234',
      device_model: 'Pixel 8',
      fingerprint: {
        platform: 'android',
        model: 'Pixel 8',
        client_stacks: { h1: 'okhttp 5.0.0', h2: 'okhttp 5.0.0' },
        server_stacks: {
          h2: { target: 'reference', software: 'latencylab-target 0.1.0 (h2 4.2.0)', server_headers: null },
          mine: { target: 'customer', software: null, server_headers: ['nginx/1.25.3'] },
        },
      },
    };
    render(<RunsTable runs={[done, failedOnce]} />);
    const row = screen.getByTestId(`run-${failedOnce.id}`);
    expect(row).toHaveTextContent('Pixel 8 R5CT1234');
    const link = within(row).getByRole('link', { name: 'block-0-runner.log' });
    expect(link).toHaveAttribute('href', failedOnce.artifacts[0]!.download_url);
    expect(link).toHaveAttribute('download', 'block-0-runner.log');
    expect(row).toHaveTextContent('18.2 KB · attempt 1 on host-lab-1');
    expect(within(row).getByText('Fingerprint')).toBeInTheDocument();
    // The stacks read as words, on the row and in the fingerprint, not as JSON.
    const clientLines = within(row).getByRole('list', { name: 'Client stacks' });
    expect(within(clientLines).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'Client h1: okhttp 5.0.0',
      'Client h2: okhttp 5.0.0',
    ]);
    const serverLines = within(row).getByRole('list', { name: 'Server stacks' });
    expect(within(serverLines).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'Server h2: reference target (h2 4.2.0)',
      'Server mine: your server: nginx/1.25.3',
    ]);
    expect(row).toHaveTextContent('client_stacksh1 okhttp 5.0.0 · h2 okhttp 5.0.0');
    expect(row).not.toHaveTextContent('{"h2"');
    expect(screen.getByTestId(`run-${done.id}`)).toHaveTextContent('none');
  });

  it("says how a run's attempts went wrong, one line per attempt", () => {
    const failed: Run = {
      ...done,
      status: 'failed',
      error_kind: 'timeout',
      error:
        'infrastructure: failed after 3 attempts\nattempt 1 on Pixel 8 (R5CT1234): device_lost: device disappeared during block 3',
    };
    render(<RunsTable runs={[failed]} />);
    const row = screen.getByTestId(`run-${failed.id}`);
    expect(within(row).getByText('timeout')).toHaveClass('tag');
    expect(within(row).getByText(/device disappeared during block 3/)).toHaveClass('pre-line');
  });
});
