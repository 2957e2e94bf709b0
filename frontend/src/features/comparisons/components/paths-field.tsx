import { FieldMessages } from '@/components/field-messages';

type PathsFieldProps = {
  id: string;
  ask: { label: string; placeholder: string };
  hint: string;
  multiline: boolean;
  value: string;
  onChange: (value: string) => void;
  messages: string[];
};

/** A field for paths on the customer's own server (one path, or one per line), with the server's messages. */
export function PathsField({ id, ask, hint, multiline, value, onChange, messages }: PathsFieldProps) {
  const common = {
    id,
    placeholder: ask.placeholder,
    value,
    'aria-invalid': messages.length > 0 || undefined,
  };
  return (
    <div className="field">
      <label htmlFor={id}>{ask.label}</label>
      {multiline ? (
        <textarea {...common} rows={3} onChange={(event) => onChange(event.target.value)} />
      ) : (
        <input {...common} onChange={(event) => onChange(event.target.value)} />
      )}
      <p className="hint">{hint}</p>
      <FieldMessages id={`${id}-error`} messages={messages} />
    </div>
  );
}
