#!/usr/bin/env -S node --max-semi-space-size=8 --no-memory-reducer
// Entry point of the `scoop` command. Runs the built bundle (dist/cli.mjs, made by
// `npm install`, `npm start` and `npm test`) when it is at least as new as every source
// file; otherwise the sources themselves through the TypeScript loader, so a stale build
// is never run.
//
// The node flags on the first line are part of how scoop runs: `npx scoop` and an installed
// `scoop` run this file itself, `npm start` and the deploy unit pass the same flags (tests
// keep them equal), and the benchmark reads them from here (bench/node-flags.ts);
// `node bin/scoop.js` runs without them. A young generation of at
// most 8 MB a half instead of V8's 16 keeps a server's peak RSS under the realistic mix
// 20-50 MB lower at no measured cost in CPU (docs/performance.md, "The sixteenth round").
import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = `${dir}/${entry.name}`;
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(file));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(file).mtimeMs);
  }
  return newest;
}

function builtIsFresh() {
  try {
    return statSync(`${root}dist/cli.mjs`).mtimeMs >= newestSource(`${root}src`);
  } catch {
    return false;
  }
}

let main;
if (builtIsFresh()) {
  ({ main } = await import('../dist/cli.mjs'));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
