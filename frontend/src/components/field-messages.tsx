import { useId } from 'react';
import { type FieldError } from '@/lib/field-errors';

/** Messages for `path` and anything nested below it, shown under the field. */
export function fieldMessages(errors: FieldError[], path: string): string[] {
  return errors
    .filter((error) => error.path === path || error.path.startsWith(`${path}.`))
    .map((error) => error.message);
}

/** The id of a field's messages (`workload.periods` → `workload-periods-error`), for its
 * `aria-describedby` while it has any. */
export function messagesIdOf(path: string, messages: string[]): string | undefined {
  return messages.length ? `${path.replace(/\./g, '-')}-error` : undefined;
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

type ErrorSummaryProps = { errors: FieldError[]; title?: string };

/** What the server refused, each message with the path of its field; shared by every form. */
export function ErrorSummary({ errors, title = 'The comparison was not created. Fix these fields:' }: ErrorSummaryProps) {
  const titleId = useId();
  if (errors.length === 0) return null;
  return (
    <div role="alert" className="alert alert-error error-summary" aria-labelledby={titleId}>
      <p id={titleId} className="error-summary-title">
        {title}
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
