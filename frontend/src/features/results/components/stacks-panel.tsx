import type { ArmStacks, ComparisonResults } from '@/lib/api-types';
import { armLegend, clientLabel, serverHeaderNote, serverLabel } from '@/utils/stacks';
import { ArmSwatch } from './arm-swatch';
import { DataTable } from '@/components/data-table';

/**
 * Method: which client measured each arm and which server answered it, from the runs'
 * fingerprints. A figure is quotable only with its stacks — "HTTP/3 (quic-go on a host)"
 * and "HTTP/3 (Cronet on a Pixel 8)" are different claims. The legend lines use the charts'
 * arm colours, so they double as the charts' key.
 */
export function StacksPanel({ results }: { results: ComparisonResults }) {
  const { stacks } = results;
  if (stacks.length === 0) return null;
  const reported = stacks.some((arm) => arm.clients.length > 0 || arm.servers.length > 0);
  return (
    <section className="card" aria-labelledby="stacks-heading">
      <h3 id="stacks-heading">Method: which client and server</h3>
      <p className="chart-subtitle">
        What measured each arm and what answered it, as the runs reported. Quote a figure with its arm's line.
      </p>
      {!reported ? (
        <p className="muted">The client and server of each arm appear once a run finishes.</p>
      ) : (
        <>
          <ul className="arm-legend" aria-label="Arm legend">
            {stacks.map((arm) => (
              <li key={arm.arm}>
                <ArmSwatch arms={results.arms} arm={arm.arm} />
                {armLegend(arm.arm, arm.clients, arm.servers)}
              </li>
            ))}
          </ul>
          <DataTable label="Client and server per arm" columns={['Arm', 'Client (where it ran)', 'Server']}>
            <tbody>
              {stacks.map((arm) => (
                <StacksRow key={arm.arm} arm={arm} baseline={arm.arm === results.baseline_arm} />
              ))}
            </tbody>
          </DataTable>
        </>
      )}
    </section>
  );
}

function StacksRow({ arm, baseline }: { arm: ArmStacks; baseline: boolean }) {
  return (
    <tr data-testid={`stacks-${arm.arm}`}>
      <th scope="row">
        {arm.arm}
        <span className="tag">{arm.protocol}</span>
        {baseline && <span className="tag">baseline</span>}
      </th>
      <td>
        {arm.clients.length === 0 ? (
          <span className="muted">not reported yet</span>
        ) : (
          <ul className="plain-list">
            {arm.clients.map((client) => (
              <li key={`${client.platform}/${client.device}/${client.stack}`}>
                {clientLabel(client)}
                <span className="muted small">
                  {' '}
                  {client.stack} · {client.platform} · {runs(client.runs)}
                </span>
              </li>
            ))}
          </ul>
        )}
      </td>
      <td>
        {arm.servers.length === 0 ? (
          <span className="muted">not reported yet</span>
        ) : (
          <ul className="plain-list">
            {arm.servers.map((server) => (
              <li key={`${server.target}/${server.software}/${(server.server_headers ?? ['-']).join(',')}`}>
                {serverLabel(server)}
                <span className="muted small">
                  {' '}
                  {server.software ? `${server.software} · ` : ''}
                  {serverHeaderNote(server)} · {runs(server.runs)}
                </span>
              </li>
            ))}
          </ul>
        )}
      </td>
    </tr>
  );
}

function runs(n: number): string {
  return n === 1 ? '1 run' : `${n} runs`;
}
