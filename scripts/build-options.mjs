// How scripts/build.mjs bundles the sources; test/command-start.test.ts builds with the same
// options into a folder of its own to check what each command loads.
/** @type {import('esbuild').BuildOptions} */
export const BUILD_OPTIONS = {
  entryPoints: {
    cli: 'src/cli/main.ts',
    'encode-worker': 'src/store/encode-worker.ts',
    'render-worker': 'src/prepare/render-worker.ts',
    'digest-worker': 'src/store/bundle/digest-worker.ts',
  },
  outExtension: { '.js': '.mjs' },
  bundle: true,
  // Code the entries share, and each command's own (loaded when it runs, with its
  // dependencies: src/cli/main.ts), are chunks beside them in one folder, so that a
  // module's `new URL('./x.mjs', import.meta.url)` finds its sibling whichever file holds it.
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
};
