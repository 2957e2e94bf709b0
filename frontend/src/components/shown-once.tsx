import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

type ShownOnceProps = {
  /** The secret or link: the service keeps only its hash, so this is the one time it exists. */
  value: string;
  /** What it is and what to do with it; labels the field. */
  children: ReactNode;
  onDismiss: () => void;
  ariaLabel: string;
  testId?: string;
  inputTestId?: string;
  /** Under the field (e.g. the command that uses the secret). */
  footer?: ReactNode;
};

/**
 * A value shown once (API token, enrollment token, webhook signing secret, share link):
 * focused and selected so it can be copied straight away, with Copy and Done.
 */
export function ShownOnce({ value, children, onDismiss, ariaLabel, testId, inputTestId, footer }: ShownOnceProps) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const fieldId = useId();
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    input.current?.focus();
    setCopied(null);
  }, [value]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <div className="alert alert-info stack-tight" data-testid={testId} role="region" aria-label={ariaLabel}>
      <label htmlFor={fieldId}>{children}</label>
      <div className="secret-row">
        <input
          id={fieldId}
          ref={input}
          className="secret"
          readOnly
          value={value}
          data-testid={inputTestId}
          onFocus={(event) => event.target.select()}
        />
        <button type="button" className="button" onClick={() => void copy()}>
          {copied === 'yes' ? 'Copied' : 'Copy'}
        </button>
        <button type="button" className="button button-ghost" onClick={onDismiss}>
          Done
        </button>
      </div>
      {copied === 'failed' && <span className="small">The browser did not allow copying; select it and copy it.</span>}
      {footer}
    </div>
  );
}
