import { FieldMessages } from '@/components/field-messages';
import { CONNECTION_POLICIES, PROTOCOLS } from '@/lib/api-types';
import type { ArmDraft } from './spec-draft';

type ArmRowProps = {
  arm: ArmDraft;
  index: number;
  onChange: (patch: Partial<ArmDraft>) => void;
  onRemove: () => void;
  /** The last arm left cannot be removed. */
  removable: boolean;
  /** The form's messages for a field path and anything below it. */
  messages: (path: string) => string[];
};

/** One arm in the builder's arms table: its label, protocol, connection, endpoint and CA bundle. */
export function ArmRow({ arm, index, onChange, onRemove, removable, messages }: ArmRowProps) {
  const at = (field: string) => messages(`arms.${index}.${field}`);
  return (
    <tr data-testid="arm-row">
      <td>
        <input
          aria-label={`Label of arm ${index + 1}`}
          value={arm.label}
          onChange={(event) => onChange({ label: event.target.value })}
          aria-invalid={at('label').length > 0 || undefined}
        />
        <FieldMessages id={`arms-${index}-label-error`} messages={at('label')} />
      </td>
      <td>
        <select
          aria-label={`Protocol of arm ${index + 1}`}
          value={arm.protocol}
          onChange={(event) => onChange({ protocol: event.target.value as ArmDraft['protocol'] })}
          aria-invalid={at('protocol').length > 0 || undefined}
        >
          {PROTOCOLS.map((protocol) => (
            <option key={protocol} value={protocol}>
              {protocolLabel(protocol)}
            </option>
          ))}
        </select>
        <FieldMessages id={`arms-${index}-protocol-error`} messages={at('protocol')} />
      </td>
      <td>
        <select
          aria-label={`Connection of arm ${index + 1}`}
          value={arm.connection}
          onChange={(event) => onChange({ connection: event.target.value as ArmDraft['connection'] })}
          aria-invalid={at('connection').length > 0 || undefined}
        >
          {CONNECTION_POLICIES.map((policy) => (
            <option key={policy} value={policy}>
              {policy}
            </option>
          ))}
        </select>
        <FieldMessages id={`arms-${index}-connection-error`} messages={at('connection')} />
      </td>
      <td>
        <input
          aria-label={`Endpoint of arm ${index + 1}`}
          placeholder="reference target"
          value={arm.endpoint}
          onChange={(event) => onChange({ endpoint: event.target.value })}
          aria-invalid={at('endpoint').length > 0 || undefined}
        />
        <FieldMessages id={`arms-${index}-endpoint-error`} messages={at('endpoint')} />
        <details className="arm-ca" open={Boolean(arm.caBundle) || at('ca_bundle').length > 0}>
          <summary>CA bundle</summary>
          <textarea
            aria-label={`CA bundle of arm ${index + 1}`}
            rows={3}
            placeholder="-----BEGIN CERTIFICATE-----"
            value={arm.caBundle ?? ''}
            onChange={(event) => onChange({ caBundle: event.target.value })}
            aria-invalid={at('ca_bundle').length > 0 || undefined}
          />
          <FieldMessages id={`arms-${index}-ca-error`} messages={at('ca_bundle')} />
        </details>
      </td>
      <td className="cell-action">
        <button
          type="button"
          className="button button-ghost"
          onClick={onRemove}
          disabled={!removable}
          aria-label={`Remove arm ${index + 1}`}
        >
          Remove
        </button>
      </td>
    </tr>
  );
}

function protocolLabel(protocol: string): string {
  switch (protocol) {
    case 'h1c':
      return 'HTTP/1.1 cleartext (h1c)';
    case 'h1':
      return 'HTTPS/1.1 (h1)';
    case 'h2':
      return 'HTTP/2 (h2)';
    case 'h3':
      return 'HTTP/3 (h3)';
    case 'grpc':
      return 'gRPC (grpc)';
    default:
      return protocol;
  }
}
