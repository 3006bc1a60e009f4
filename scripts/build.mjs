// Bundles the TypeScript sources into dist/cli.mjs (dependencies stay external), so the
// service runs as plain JavaScript: no TypeScript loader on the request path. The import's
// file encoding worker (src/store/file-encoder.ts) is a bundle of its own beside it.
import { build } from 'esbuild';

await build({
  entryPoints: { cli: 'src/cli/main.ts', 'encode-worker': 'src/store/encode-worker.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});
