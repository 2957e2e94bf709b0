import { useId, type ReactNode } from 'react';
import { FieldMessages, fieldMessages } from '@/components/field-messages';
import type { NetworkProfileBounds } from '@/lib/api-types';
import type { FieldError } from '@/lib/field-errors';
import { ADVANCED_NUMBER_FIELDS, BURST_FIELD, DIRECTIONS, GILBERT_FIELDS, type Direction, type FieldSpec, type Values } from './profile-fields';

type AdvancedFieldsProps = {
  bounds: NetworkProfileBounds;
  values: Values;
  errors: FieldError[];
  set: (key: string, value: string) => void;
  /** Renders one number input: (error path, state key, field, its bounds, help). */
  numberField: (path: string, stateKey: string, field: FieldSpec, bounds: NetworkProfileBounds['direction'][string] | undefined, help?: string) => ReactNode;
  open: boolean;
  onToggle: (open: boolean) => void;
};

/**
 * The fields most profiles leave at their defaults, folded away: per direction jitter
 * correlation, reordering and the loss model (Gilbert-Elliott bursts), and the emulator's seed.
 */
export function AdvancedFields({ bounds, values, errors, set, numberField, open, onToggle }: AdvancedFieldsProps) {
  return (
    <details className="fieldset advanced-fields" open={open} onToggle={(event) => onToggle(event.currentTarget.open)}>
      <summary>Advanced: jitter correlation, reordering, Gilbert-Elliott loss, seed</summary>
      {DIRECTIONS.map((direction) => (
        <AdvancedDirection
          key={direction.key}
          direction={direction.key}
          label={direction.label}
          bounds={bounds}
          values={values}
          errors={errors}
          set={set}
          numberField={numberField}
        />
      ))}
      <div className="field-row">
        {numberField('spec.seed', 'seed', { key: 'seed', label: 'Random seed', unit: 'integer' }, bounds.seed,
          'the same seed replays the same losses and delays; empty: a new one per run')}
      </div>
    </details>
  );
}

type AdvancedDirectionProps = Omit<AdvancedFieldsProps, 'open' | 'onToggle'> & { direction: Direction; label: string };

function AdvancedDirection({ direction, label, bounds, values, errors, set, numberField }: AdvancedDirectionProps) {
  const id = useId();
  const serverDefault = bounds.direction['loss_model']?.default;
  const model = values[`${direction}.loss_model`] || (typeof serverDefault === 'string' ? serverDefault : 'random');
  const choices = bounds.direction['loss_model']?.choices ?? ['random', 'gilbert_elliott'];
  const path = `spec.${direction}`;
  const modelErrors = fieldMessages(errors, `${path}.loss_model`);
  const gilbertErrors = errors.filter((error) => error.path === `${path}.gilbert`).map((error) => error.message);
  return (
    <fieldset className="fieldset-plain">
      <legend>Advanced, {label.charAt(0).toLowerCase() + label.slice(1)}</legend>
      <div className="field-row">
        {ADVANCED_NUMBER_FIELDS.map((field) =>
          numberField(`${path}.${field.key}`, `${direction}.${field.key}`, field, bounds.direction[field.key],
            'how much each packet’s jitter follows the previous one’s'),
        )}
        <div className="field">
          <label htmlFor={`${id}-model`}>Loss model</label>
          <select
            id={`${id}-model`}
            value={model}
            aria-invalid={modelErrors.length > 0}
            aria-describedby={`${id}-model-hint${modelErrors.length ? ` ${id}-model-errors` : ''}`}
            onChange={(event) => set(`${direction}.loss_model`, event.target.value)}
          >
            {choices.map((choice) => (
              <option key={choice} value={choice}>
                {choice === 'gilbert_elliott' ? 'Gilbert-Elliott (bursts)' : 'Random (independent)'}
              </option>
            ))}
          </select>
          <span className="hint" id={`${id}-model-hint`}>
            Random drops each packet alone at the loss rate; Gilbert-Elliott drops them in bursts.
          </span>
          <FieldMessages id={`${id}-model-errors`} messages={modelErrors} />
        </div>
        <label className="checkbox field-checkbox">
          <input
            type="checkbox"
            checked={values[`${direction}.reorder`] === 'true'}
            onChange={(event) => set(`${direction}.reorder`, event.target.checked ? 'true' : '')}
          />{' '}
          Reorder packets (jitter may deliver them out of order)
        </label>
      </div>
      {model === 'gilbert_elliott' && (
        <fieldset className="fieldset-plain" aria-describedby={gilbertErrors.length ? `${id}-gilbert-errors` : undefined}>
          <legend>Gilbert-Elliott loss: the four parameters, or a mean burst at the loss rate above</legend>
          <div className="field-row">
            {GILBERT_FIELDS.map((field) =>
              numberField(`${path}.gilbert.${field.key}`, `${direction}.gilbert.${field.key}`, field, bounds.gilbert[field.key]),
            )}
            {numberField(`${path}.${BURST_FIELD.key}`, `${direction}.${BURST_FIELD.key}`, BURST_FIELD, bounds.direction[BURST_FIELD.key])}
          </div>
          <FieldMessages id={`${id}-gilbert-errors`} messages={gilbertErrors} />
        </fieldset>
      )}
    </fieldset>
  );
}
