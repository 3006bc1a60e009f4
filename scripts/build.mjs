// Bundles the TypeScript sources into dist/cli.mjs (dependencies stay external), so the
// service runs as plain JavaScript: no TypeScript loader on the request path. The import's
// file encoding worker (src/store/file-encoder.ts) is a bundle of its own beside it. Code
// loaded with import() (each command, the PostgreSQL store) goes into chunks of its own
// beside them, so a command loads only what it uses. Everything stays in one folder: code
// finds the worker relative to its own file. Files of an earlier build are removed after.
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const outdir = 'dist';
const result = await build({
  entryPoints: { cli: 'src/cli/main.ts', 'encode-worker': 'src/store/encode-worker.ts' },
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  splitting: true,
  chunkNames: '[name]-[hash]',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
  metafile: true,
});
const made = new Set(Object.keys(result.metafile.outputs).map((file) => path.resolve(file)));
for (const name of readdirSync(outdir)) {
  const file = path.resolve(outdir, name);
  if (!made.has(file)) rmSync(file, { recursive: true, force: true });
}
