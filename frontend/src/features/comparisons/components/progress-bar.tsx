import type { Progress } from '@/lib/api-types';

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
          </>
        )}
      </span>
    </div>
  );
}
