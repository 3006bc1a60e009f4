// Bundles the TypeScript sources into dist/cli.mjs (dependencies stay external), so the
// service runs as plain JavaScript: no TypeScript loader on the request path. The import's
// worker threads (src/store/encode-worker.ts, src/prepare/render-worker.ts) are bundles of
// their own beside it.
import { build } from 'esbuild';

await build({
  entryPoints: {
    cli: 'src/cli/main.ts',
    'encode-worker': 'src/store/encode-worker.ts',
    'render-worker': 'src/prepare/render-worker.ts',
  },
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
