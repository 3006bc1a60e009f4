// Bundles the TypeScript sources into dist/ (dependencies stay external), so the service
// runs as plain JavaScript: no TypeScript loader on the request path. dist/cli.mjs is the
// entry; the import's worker threads (src/store/encode-worker.ts,
// src/prepare/render-worker.ts) are entries of their own beside it; the rest is chunks
// (scripts/build-options.mjs).
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { BUILD_OPTIONS } from './build-options.mjs';

const outdir = 'dist';
const result = await build({ ...BUILD_OPTIONS, outdir });

// Chunks are named by their content: remove those of earlier builds. (A process started
// from the build before, still loading its command's chunk, would miss it: build with no
// `scoop` starting meanwhile, as npm start and npm test do.)
const written = new Set(Object.keys(result.metafile.outputs).map((file) => path.resolve(file)));
for (const name of readdirSync(outdir)) {
  if (/\.mjs(\.map)?$/.test(name) && !written.has(path.resolve(outdir, name)))
    rmSync(path.join(outdir, name));
}
