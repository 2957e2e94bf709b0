import type { Progress } from '@/lib/api-types';
import { formatDuration } from '@/utils/format';

type ProgressBarProps = { progress: Progress; label: string; detailed?: boolean };

export function ProgressBar({ progress, label, detailed = false }: ProgressBarProps) {
  const percent = Math.max(0, Math.min(100, Math.round(progress.percent)));
  return (
    <div className="progress">
      <div
        className="progress-track"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
      >
        <div className="progress-fill" style={{ width: `${percent}%` }} />
      </div>
      <span className="progress-text">
        {percent} %
        {detailed && (
          <>
            {' '}
            · {progress.blocks_done}/{progress.blocks_total} blocks · {progress.runs_done}/{progress.runs_total} runs
            {/* Run until decided: the device time lies between every run stopping at min and going to max. */}
            {progress.blocks_min !== progress.blocks_max && (
              <>
                {' '}
                · run until decided: {progress.blocks_min}–{progress.blocks_max} blocks in all
              </>
            )}
            {/* At the pace of the blocks stored so far; a range for run until decided. */}
            {typeof progress.device_seconds_left_max === 'number' && progress.device_seconds_left_max > 0 && (
              <> · {deviceTimeLeft(progress)} of device time left</>
            )}
          </>
        )}
      </span>
    </div>
  );
}

function deviceTimeLeft(progress: Progress): string {
  const low = progress.device_seconds_left_min ?? 0;
  const high = progress.device_seconds_left_max ?? 0;
  if (low === high) return `about ${formatDuration(high)}`;
  // A look that can stop the runs is due now.
  if (low === 0) return `up to about ${formatDuration(high)}`;
  return `about ${formatDuration(low)}–${formatDuration(high)}`;
}
