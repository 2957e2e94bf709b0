// Fails when src/api/schema.ts is stale against ../backend/openapi.yaml (run `npm run gen:api`): the
// same generator and options as package.json's gen:api, into a temporary file, compared byte for byte.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = mkdtempSync(path.join(tmpdir(), 'latencylab-api-'));
const fresh = path.join(dir, 'schema.ts');
try {
  execFileSync(
    process.execPath,
    [path.join(root, 'node_modules/openapi-typescript/bin/cli.js'), '../backend/openapi.yaml', '--enum-values', '-o', fresh],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const committed = readFileSync(path.join(root, 'src/api/schema.ts'), 'utf8');
  if (readFileSync(fresh, 'utf8') !== committed) {
    console.error('src/api/schema.ts is stale: run `npm run gen:api` in frontend/ and commit the result.');
    process.exit(1);
  }
  console.log('src/api/schema.ts matches ../backend/openapi.yaml');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
