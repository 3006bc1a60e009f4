/**
 * The node flags a checkout's `scoop` command runs with: those on the first line of its
 * bin/scoop.js (`#!/usr/bin/env -S node FLAGS`). The harness starts `node FLAGS
 * bin/scoop.js …` so that every build runs as its own `npx scoop` would, whatever flags
 * it ships with (none, for builds before 2026-11-28).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const SHEBANG = /^#!\/usr\/bin\/env -S node((?: +-[^ ]+)*) *$/;

export function scoopNodeFlags(root = '.'): string[] {
  const first = readFileSync(path.join(root, 'bin/scoop.js'), 'utf8').split('\n', 1)[0]!;
  const flags = SHEBANG.exec(first)?.[1]?.trim();
  return flags ? flags.split(/ +/) : [];
}
