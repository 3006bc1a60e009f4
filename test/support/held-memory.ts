/**
 * What a structure holds in memory, measured in a node process of its own with
 * `--expose-gc`: the memory in use (heap and array buffers, after full collections) with
 * it built, less that once it is dropped. Measuring against the same process without it,
 * rather than before it was built, leaves out what loading the modules left behind.
 */
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/** A module's URL for the child's `import`, from a path relative to `base` (a test's import.meta.url). */
export function moduleUrl(relative: string, base: string): string {
  return JSON.stringify(pathToFileURL(new URL(relative, base).pathname).href);
}

/**
 * `build` is module code (top-level await allowed) that assigns the structure to `kept`;
 * `report` an expression read while it is still alive, returned as `reported`.
 */
export function heldBy(build: string, report = 'undefined'): { held: number; reported: unknown } {
  const script = `
const held = () => { gc(); gc(); const m = process.memoryUsage(); return m.heapUsed + m.arrayBuffers; };
let kept;
${build}
const full = held();
// Read after the measure, so that it is alive during it (V8 may drop a binding that is no
// longer read across an await).
const reported = ${report};
kept = undefined;
process.stdout.write(JSON.stringify({ held: full - held(), reported }));
`;
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script],
    {
      encoding: 'utf8',
    },
  );
  return JSON.parse(out) as { held: number; reported: unknown };
}
