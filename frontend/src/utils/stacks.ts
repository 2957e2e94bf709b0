/**
 * Which client and which server measured an arm, in words a reader can quote:
 * "h3 — quic-go 0.65.0 (host) · cronet 128 (Pixel 8) → reference target (quic-go 0.65.0)".
 * Plain types, so both the results panel and the runs table (two features) use them.
 */

export type ClientStackLike = { platform: string; device: string; stack: string };
export type ServerStackLike = { target: string; software: string | null; server_headers: string[] | null };

// The host probe names itself and the library under the protocol: "latencylab-probe 0.1.0 (quic-go 0.65.0)";
// the library is what differs between arms, so short labels keep only it.
const PROBE = /^latencylab-probe \S+ \((.+)\)$/;
// The reference target likewise: "latencylab-target 0.1.0 (quic-go 0.65.0)".
const TARGET = /^latencylab-target \S+ \((.+)\)$/;

/** "quic-go 0.65.0 (host)", "cronet 128 (Pixel 8)". */
export function clientLabel(client: ClientStackLike): string {
  const stack = PROBE.exec(client.stack)?.[1] ?? client.stack;
  const where = client.platform === 'host' ? 'host' : client.device;
  return `${stack} (${where})`;
}

/** "reference target (quic-go 0.65.0)", "your server: nginx/1.25.3", "your server". */
export function serverLabel(server: ServerStackLike): string {
  if (server.target === 'reference') {
    const library = server.software ? (TARGET.exec(server.software)?.[1] ?? server.software) : null;
    return library ? `reference target (${library})` : 'reference target';
  }
  const headers = server.server_headers ?? [];
  return headers.length > 0 ? `your server: ${headers.join(', ')}` : 'your server';
}

/** What the Server header said, or why there is none to show. */
export function serverHeaderNote(server: ServerStackLike): string {
  if (server.server_headers === null) return 'Server header not read';
  if (server.server_headers.length === 0) return 'no Server header sent';
  return `Server: ${server.server_headers.join(', ')}`;
}

/** One line per arm: "h3 — quic-go 0.65.0 (host) · cronet 128 (Pixel 8) → reference target (quic-go 0.65.0)". */
export function armLegend(arm: string, clients: ClientStackLike[], servers: ServerStackLike[]): string {
  const client = clients.length > 0 ? unique(clients.map(clientLabel)).join(' · ') : 'client not reported yet';
  const server = servers.length > 0 ? ` → ${unique(servers.map(serverLabel)).join(' · ')}` : '';
  return `${arm} — ${client}${server}`;
}

/** A fingerprint's client_stacks ({"h2": "okhttp 5.1.0"}) as [protocol, stack] pairs; [] if absent. */
export function clientStackEntries(value: unknown): [string, string][] {
  return plainEntries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
}

/** A fingerprint's server_stacks ({arm: {target, software, server_headers}}) as [arm, server in words]
 * pairs, e.g. ["mine", "your server: nginx/1.25.3"]; [] if absent. */
export function serverStackEntries(value: unknown): [string, string][] {
  return plainEntries(value)
    .filter((entry): entry is [string, ServerStackLike] => isServer(entry[1]))
    .map(([arm, server]) => [arm, serverLabel(server)]);
}

/** Either as one line: "h2 okhttp 5.1.0 · h3 cronet 128"; null when there is none. */
export function stackEntriesText(entries: [string, string][]): string | null {
  return entries.length > 0 ? entries.map(([key, text]) => `${key} ${text}`).join(' · ') : null;
}

function isServer(value: unknown): value is ServerStackLike {
  if (typeof value !== 'object' || value === null) return false;
  const server = value as Record<string, unknown>;
  const software = server.software ?? null;
  const headers = server.server_headers ?? null;
  return (
    typeof server.target === 'string' &&
    (software === null || typeof software === 'string') &&
    (headers === null || (Array.isArray(headers) && headers.every((h) => typeof h === 'string')))
  );
}

function plainEntries(value: unknown): [string, unknown][] {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.entries(value) : [];
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
