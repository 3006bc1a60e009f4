/**
 * A test reporter beside `spec` (package.json's test command): it prints nothing while
 * the tests run and, once all have ended, one line when PostgreSQL tests were skipped
 * because no PostgreSQL was reachable. With files run in parallel, a note written by a
 * test file lands wherever that file's output does; this one is the last line of the run.
 * JavaScript, not TypeScript: node loads reporters before `--import tsx` takes effect.
 */

/** What every PostgreSQL test skipped for an unreachable server has in its reason (test/support/databases.ts). */
const NOT_RUN = 'PostgreSQL half NOT RUN';

/** @param {AsyncIterable<import('node:test/reporters').TestEvent>} source */
export default async function* postgresHalf(source) {
  let skipped = 0;
  let reason = '';
  for await (const event of source) {
    if (event.type !== 'test:pass' || event.data.details.type === 'suite') continue;
    const skip = event.data.skip;
    if (typeof skip === 'string' && skip.includes(NOT_RUN)) {
      skipped++;
      reason = skip.slice(skip.indexOf(NOT_RUN) + NOT_RUN.length).replace(/^[:\s]+/, '');
    }
  }
  if (skipped > 0) {
    yield `\n!!! The PostgreSQL half of the tests was NOT RUN (${skipped} tests skipped): ${reason}. ` +
      'SCOOP_TEST_PG_REQUIRED=1 (as .ci/run sets) makes this a failure. !!!\n';
  }
}
