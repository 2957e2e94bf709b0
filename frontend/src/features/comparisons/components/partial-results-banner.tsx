import type { Progress } from '@/lib/api-types';

/** A cancelled comparison keeps the blocks stored before the cancel; its charts and verdicts
 * cover only those (the server's results and verdict say `partial` too). */
export function PartialResultsBanner({ progress }: { progress: Progress }) {
  return (
    <p className="alert alert-info" role="status" aria-label="Partial results">
      {progress.blocks_done > 0 ? (
        <>
          <strong>
            Partial results — cancelled after {progress.blocks_done} of {progress.blocks_total} blocks.
          </strong>{' '}
          The charts and verdicts below cover only the blocks stored before the cancel.
        </>
      ) : (
        <strong>Cancelled before any block was stored: there are no results.</strong>
      )}
    </p>
  );
}
