import { type FieldError } from '@/lib/field-errors';

/** Messages for `path` and anything nested below it, shown under the field. */
export function fieldMessages(errors: FieldError[], path: string): string[] {
  return errors
    .filter((error) => error.path === path || error.path.startsWith(`${path}.`))
    .map((error) => error.message);
}

export function FieldMessages({ id, messages }: { id: string; messages: string[] }) {
  if (messages.length === 0) return null;
  return (
    <ul className="field-error" id={id}>
      {messages.map((message) => (
        <li key={message}>{message}</li>
      ))}
    </ul>
  );
}

export function ErrorSummary({ errors }: { errors: FieldError[] }) {
  if (errors.length === 0) return null;
  return (
    <div role="alert" className="alert alert-error error-summary" aria-labelledby="error-summary-title">
      <p id="error-summary-title" className="error-summary-title">
        The comparison was not created. Fix these fields:
      </p>
      <ul>
        {errors.map((error, index) => (
          <li key={`${error.path}-${index}`}>
            {error.path && error.path !== 'detail' && error.path !== 'non_field_errors' ? (
              <>
                <code>{error.path}</code>: {error.message}
              </>
            ) : (
              error.message
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
