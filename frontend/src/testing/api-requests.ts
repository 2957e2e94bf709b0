import { server } from './mocks/server';

/** The API paths (with their queries) asked of the mock server while `run` runs, in order; `run` may read them as they come. */
export async function apiRequestsDuring(run: (paths: readonly string[]) => Promise<void>): Promise<string[]> {
  const paths: string[] = [];
  const record = ({ request }: { request: Request }) => {
    const url = new URL(request.url);
    if (url.pathname.startsWith('/api/')) paths.push(url.pathname + url.search);
  };
  server.events.on('request:start', record);
  try {
    await run(paths);
  } finally {
    server.events.removeListener('request:start', record);
  }
  return paths;
}
