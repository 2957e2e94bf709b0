import { FieldMessages } from '@/components/field-messages';
import type { FieldBounds } from '@/lib/api-types';
import { formatNumber } from '@/utils/format';

/** A profile's setting as typed: up to three decimals (0.25 % loss, 12.5 ms). */
export const formatSetting = (value: number): string => formatNumber(value, 3);

/** "0–60,000 ms, default 0" from the server's bounds of one field. */
export function describeBounds(bounds: FieldBounds | undefined, unit: string): string {
  if (!bounds) return '';
  const range =
    bounds.minimum !== undefined && bounds.maximum !== undefined
      ? `${formatSetting(bounds.minimum)}–${formatSetting(bounds.maximum)} ${unit}`
      : unit;
  const parts = [range];
  if (typeof bounds.default === 'number') parts.push(`default ${formatSetting(bounds.default)}`);
  else if (bounds.nullable && !bounds.required) parts.push('empty: unlimited');
  return parts.join(', ');
}

type NumberFieldProps = {
  id: string;
  label: string;
  unit: string;
  bounds: FieldBounds | undefined;
  value: string;
  /** The server's messages for this field. */
  messages: string[];
  onChange: (value: string) => void;
  /** Said after the bounds, e.g. what the field means. */
  help?: string;
};

/** A number input with its bounds (from the server) as its description, and the server's messages under it. */
export function NumberField({ id, label, unit, bounds, value, messages, onChange, help }: NumberFieldProps) {
  const hint = [describeBounds(bounds, unit), help].filter(Boolean).join('; ');
  return (
    <div className="field">
      <label htmlFor={id}>
        {label} ({unit})
      </label>
      <input
        id={id}
        type="number"
        inputMode="decimal"
        step="any"
        value={value}
        placeholder={typeof bounds?.default === 'number' ? String(bounds.default) : ''}
        aria-invalid={messages.length > 0}
        aria-describedby={`${id}-hint${messages.length ? ` ${id}-errors` : ''}`}
        onChange={(event) => onChange(event.target.value)}
      />
      <span className="hint" id={`${id}-hint`}>
        {hint}
      </span>
      <FieldMessages id={`${id}-errors`} messages={messages} />
    </div>
  );
}
