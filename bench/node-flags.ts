/**
 * The node flags a checkout's `scoop` command runs with: those on the first line of its
 * bin/scoop.js (`#!/usr/bin/env -S node FLAGS`). The harness starts `node FLAGS
 * bin/scoop.js …` so that every build runs as its own `npx scoop` would, whatever flags
 * it ships with (none, for builds before 2026-11-28, whose line is `#!/usr/bin/env node`).
 * A first line of any other shape is an error, not no flags: a build would otherwise be
 * measured quietly without them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const PLAIN = /^#!\/usr\/bin\/env[ \t]+node[ \t]*$/;
/** Flags of the `--name=value` form only: `env -S` would split a separate value anyway. */
const WITH_FLAGS = /^#!\/usr\/bin\/env[ \t]+-S[ \t]+node((?:[ \t]+--[^\s=]+(?:=\S+)?)+)[ \t]*$/;

export function scoopNodeFlags(root = '.'): string[] {
  const file = path.join(root, 'bin/scoop.js');
  const first = readFileSync(file, 'utf8').split('\n', 1)[0]!;
  if (PLAIN.test(first)) return [];
  const flags = WITH_FLAGS.exec(first)?.[1];
  if (!flags) throw new Error(`${file}: a first line the benchmark cannot read node's flags from: ${first}`);
  return flags.trim().split(/[ \t]+/);
}

/**
 * node's arguments to run a checkout's `scoop <args>` as its own `npx scoop` would: its
 * flags, then `extraFlags` (a profiler's), its bin/scoop.js and `args`.
 */
export function scoopArgs(args: readonly string[], root = '.', extraFlags: readonly string[] = []): string[] {
  return [...scoopNodeFlags(root), ...extraFlags, path.join(root, 'bin/scoop.js'), ...args];
}
