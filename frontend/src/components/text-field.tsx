import { useId, type InputHTMLAttributes } from 'react';
import { FieldMessages, fieldMessages } from './field-messages';
import type { FieldError } from '@/lib/field-errors';

type TextFieldProps = {
  label: string;
  /** The server's field name: its messages in `errors` show under the input. */
  name: string;
  value: string;
  onChange: (value: string) => void;
  errors: FieldError[];
  hint?: string;
} & Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange' | 'name' | 'id'>;

/** A labelled input with its hint and the server's messages for its field. */
export function TextField({ label, name, value, onChange, errors, hint, ...input }: TextFieldProps) {
  const id = useId();
  const messagesId = useId();
  const hintId = useId();
  const messages = fieldMessages(errors, name);
  const describedBy = [hint ? hintId : '', messages.length ? messagesId : ''].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        name={name}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={messages.length > 0}
        aria-describedby={describedBy || undefined}
        {...input}
      />
      {hint && (
        <p id={hintId} className="muted small">
          {hint}
        </p>
      )}
      <FieldMessages id={messagesId} messages={messages} />
    </div>
  );
}

const belongsTo = (error: FieldError, field: string) => error.path === field || error.path.startsWith(`${field}.`);

/** Messages that belong to no field shown (`detail`, or a field this form does not have). A `detail`
 * that comes with field messages repeats them (the API sends both), so it is left out then. */
export function FormMessages({ errors, fields }: { errors: FieldError[]; fields: string[] }) {
  const underFields = errors.some((error) => fields.some((field) => belongsTo(error, field)));
  const rest = errors.filter(
    (error) => !fields.some((field) => belongsTo(error, field)) && !(underFields && error.path === 'detail'),
  );
  if (rest.length === 0) return null;
  return (
    <p role="alert" className="alert alert-error">
      {rest.map((error) => error.message).join(' ')}
    </p>
  );
}
