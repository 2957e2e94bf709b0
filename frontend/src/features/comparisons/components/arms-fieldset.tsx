import { ACTIONS, DataTable } from '@/components/data-table';
import { FieldMessages, messagesIdOf } from '@/components/field-messages';
import { ArmRow } from './arm-row';
import type { ArmDraft } from './spec-draft';

// The server refuses more: a comparison measures at most 8 arms.
const MAX_ARMS = 8;

type ArmsFieldsetProps = {
  arms: ArmDraft[];
  baselineArm: string;
  onChangeArm: (index: number, patch: Partial<ArmDraft>) => void;
  onAddArm: () => void;
  onRemoveArm: (index: number) => void;
  onChangeBaseline: (label: string) => void;
  /** The form's messages for a field path and anything below it. */
  messages: (path: string) => string[];
  /** The messages about the arms as a whole (too few, labels alike). */
  armsMessages: string[];
};

/** The arms measured against each other, and which of them is the baseline. */
export function ArmsFieldset({
  arms,
  baselineArm,
  onChangeArm,
  onAddArm,
  onRemoveArm,
  onChangeBaseline,
  messages,
  armsMessages,
}: ArmsFieldsetProps) {
  const baselineMessages = messages('baseline_arm');
  return (
    <fieldset className="fieldset">
      <legend>Arms</legend>
      <DataTable
        label="Arms"
        columns={['Label', 'Protocol', 'Connection', 'Endpoint (optional)', ACTIONS]}
        compact={false}
        className="arms-table"
      >
        <tbody>
          {arms.map((arm, index) => (
            // Arms have no identity of their own: a label being typed changes with each key.
            <ArmRow
              key={index}
              arm={arm}
              index={index}
              onChange={(patch) => onChangeArm(index, patch)}
              onRemove={() => onRemoveArm(index)}
              removable={arms.length > 1}
              messages={messages}
            />
          ))}
        </tbody>
      </DataTable>
      <FieldMessages id="arms-error" messages={armsMessages} />
      <div className="field-row field-row-end">
        <button type="button" className="button" onClick={onAddArm} disabled={arms.length >= MAX_ARMS}>
          Add arm
        </button>
        <div className="field">
          <label htmlFor="spec-baseline">Baseline arm</label>
          <select
            id="spec-baseline"
            value={baselineArm}
            onChange={(event) => onChangeBaseline(event.target.value)}
            aria-invalid={baselineMessages.length > 0 || undefined}
            aria-describedby={messagesIdOf('baseline_arm', baselineMessages)}
          >
            {arms.map((arm, index) => (
              <option key={`${arm.label}-${index}`} value={arm.label}>
                {arm.label || `(arm ${index + 1})`}
              </option>
            ))}
          </select>
          <FieldMessages id="baseline_arm-error" messages={baselineMessages} />
        </div>
      </div>
    </fieldset>
  );
}
