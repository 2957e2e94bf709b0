import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { Progress } from '@/lib/api-types';
import { ProgressBar } from './progress-bar';

const running: Progress = {
  runs_total: 1,
  runs_done: 0,
  blocks_total: 6,
  blocks_done: 3,
  percent: 50,
  blocks_min: 6,
  blocks_max: 24,
  seconds_per_block: 40,
  device_seconds_left_min: 120,
  device_seconds_left_max: 840,
};

describe('ProgressBar', () => {
  it('gives a run-until-decided comparison its device time left as a range', () => {
    render(<ProgressBar progress={running} label="Comparison progress" detailed />);
    expect(screen.getByText(/run until decided: 6–24 blocks in all/)).toBeInTheDocument();
    expect(screen.getByText(/about 2 min–14 min of device time left/)).toBeInTheDocument();
  });

  it('says nothing of time left before a pace is measured or once finished', () => {
    render(
      <ProgressBar
        progress={{ ...running, seconds_per_block: null, device_seconds_left_min: null, device_seconds_left_max: null }}
        label="Comparison progress"
        detailed
      />,
    );
    expect(screen.queryByText(/device time left/)).not.toBeInTheDocument();
  });
});
