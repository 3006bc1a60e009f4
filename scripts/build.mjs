// Bundles the TypeScript sources into dist/cli.mjs (dependencies stay external), so the
// service runs as plain JavaScript: no TypeScript loader on the request path.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/cli/main.ts'],
  outfile: 'dist/cli.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});
