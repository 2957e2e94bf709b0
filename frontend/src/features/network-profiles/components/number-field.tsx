import { FieldMessages } from '@/components/field-messages';
import type { FieldBounds } from '@/lib/api-types';

export function formatNumber(value: number): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: 3 });
}

/** "0–60,000 ms, default 0" from the server's bounds of one field. */
export function describeBounds(bounds: FieldBounds | undefined, unit: string): string {
  if (!bounds) return '';
  const range =
    bounds.minimum !== undefined && bounds.maximum !== undefined
      ? `${formatNumber(bounds.minimum)}–${formatNumber(bounds.maximum)} ${unit}`
      : unit;
  const parts = [range];
  if (typeof bounds.default === 'number') parts.push(`default ${formatNumber(bounds.default)}`);
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
