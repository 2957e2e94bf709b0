import { FieldMessages, messagesIdOf } from '@/components/field-messages';
import { CONCURRENCY_CHOICES, type SpecDraft } from './spec-draft';

type ShapeFieldsProps = {
  draft: SpecDraft;
  update: (patch: Partial<SpecDraft>) => void;
  /** The form's messages for a field path and anything below it. */
  messages: (path: string) => string[];
};

/** A series' periods (requests per series) and how often each period repeats. */
export function SeriesFields({ draft, update, messages }: ShapeFieldsProps) {
  const periods = messages('workload.periods');
  const repetitions = messages('workload.repetitions');
  return (
    <>
      <div className="field">
        <label htmlFor="spec-periods">Periods (requests per series)</label>
        <input
          id="spec-periods"
          value={draft.periods}
          onChange={(event) => update({ periods: event.target.value })}
          aria-invalid={periods.length > 0 || undefined}
          aria-describedby={messagesIdOf('workload.periods', periods)}
        />
        <p className="hint">Comma-separated, e.g. 3, 6, 9 (the objects wrap around after the last).</p>
        <FieldMessages id="workload-periods-error" messages={periods} />
      </div>
      <div className="field">
        <label htmlFor="spec-repetitions">Repetitions per period</label>
        <input
          id="spec-repetitions"
          inputMode="numeric"
          value={draft.repetitions}
          onChange={(event) => update({ repetitions: event.target.value })}
          aria-invalid={repetitions.length > 0 || undefined}
          aria-describedby={messagesIdOf('workload.repetitions', repetitions)}
        />
        <FieldMessages id="workload-repetitions-error" messages={repetitions} />
      </div>
    </>
  );
}

/** How the app issues a series of requests: one after another, or several at once. */
export function ConcurrencyField({ draft, update, messages }: ShapeFieldsProps) {
  const shown = messages('workload.concurrency');
  return (
    <div className="field">
      <label htmlFor="spec-concurrency">Concurrency</label>
      <select
        id="spec-concurrency"
        value={draft.concurrency}
        onChange={(event) => update({ concurrency: event.target.value })}
        aria-invalid={shown.length > 0 || undefined}
        aria-describedby={messagesIdOf('workload.concurrency', shown)}
      >
        {[...new Set([...CONCURRENCY_CHOICES, draft.concurrency])].map((choice) => (
          <option key={choice} value={choice}>
            {choice}
          </option>
        ))}
      </select>
      <p className="hint">
        How the app issues a series (an API round, a request list): one request after another, or all at once over up to N HTTP/1.1
        connections per host (HTTP/2, HTTP/3 and gRPC multiplex them on one), on hosts and phones alike.
      </p>
      <FieldMessages id="workload-concurrency-error" messages={shown} />
    </div>
  );
}
