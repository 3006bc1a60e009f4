/** `scoop compare`: argv, the request source, printing, the report files and the exit code. */
import { accessSync, constants, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleIds, countRequests, requestsFor } from '../migrate/compare/from-bundle.ts';
import { HarError, parseHar } from '../migrate/compare/har.ts';
import { HttpSender, parseBaseUrl } from '../migrate/compare/http-sender.ts';
import { probeService } from '../migrate/compare/probe.ts';
import type { ReplayRequest } from '../migrate/compare/replay-request.ts';
import { entryOf, formatCompared, type ReportEntry, summaryLine } from '../migrate/compare/report.ts';
import { renderHtml } from '../migrate/compare/report-html.ts';
import { parseRequestsFile, RequestsFileError } from '../migrate/compare/requests-file.ts';
import { compareAll, type Side } from '../migrate/compare/run-compare.ts';
import type { BindingName } from '../protocol/binding.ts';
import { DEFAULT_NAMESPACE } from '../server/settings.ts';
import { BundleError } from '../store/bundle/validate.ts';
import { parseCommand, UsageError } from './usage.ts';

const HELP = `Usage: scoop compare --baseline URL --candidate URL [--baseline-token GUID] [--candidate-token GUID]
                     (--from-bundle DIR | --har FILE | --requests FILE)
                     [--bindings soap11,soap12,httpget,httppost] [--report FILE.html] [--json FILE]
                     [--concurrency N] [--timeout SECONDS] [--namespace NS]

Sends the same requests to two services (the original and scoop, say) and compares the
answers after XML canonicalisation. Prints each difference (the request, both status
lines, a short diff) and a summary: N same, B both refused, M different, K failed.
Exit code 0 when nothing differs or failed, 1 otherwise, 2 for a mistake in the options
or input. docs/migration.md#compare says more.

Options:
  --baseline URL, --candidate URL
                      each service's base URL (the endpoints' paths are appended)
  --baseline-token GUID, --candidate-token GUID
                      each side's token, put into every request that carries one
                      (the SOAP header, an Authorization: Bearer header, a token form field)
  --from-bundle DIR   every operation for every record of the bundle, a few unknown ids,
                      the bundle's subscribers' e-mail addresses
  --har FILE          the service calls of a HAR file, with their bodies
  --requests FILE     calls one a line: "getBereich bereichID=1" (docs/migration.md#compare)
  --bindings LIST     the bindings to call (default all four); a HAR's other calls are skipped
  --report FILE.html  a self-contained HTML report with side-by-side diffs
  --json FILE         the results as JSON
  --concurrency N     requests in flight at once (default 4)
  --timeout SECONDS   for each answer (default 30)
  --namespace NS      the services' XML namespace (default ${DEFAULT_NAMESPACE})`;

const BINDINGS: readonly BindingName[] = ['soap11', 'soap12', 'httpget', 'httppost'];
const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** Bytes of an answer kept to compare canonically; a longer one is compared by its SHA-256. */
export const COMPARE_KEEP_BYTES = 32 * 1024 * 1024;
/** Differences and failures listed in the JSON and HTML reports; the rest are only counted. */
const MAX_LISTED = 1000;
/** A HAR or requests file is read whole. */
const MAX_INPUT_BYTES = 512 * 1024 * 1024;

function baseUrl(value: unknown, option: string): URL {
  if (typeof value !== 'string') throw new UsageError(`--${option} URL is required\n\n${HELP}`);
  const url = parseBaseUrl(value);
  if (!url)
    throw new UsageError(
      `--${option} must be an http(s) URL such as http://cms.example.org, not ${JSON.stringify(value)}`,
    );
  return url;
}

function token(value: unknown, option: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !GUID.test(value))
    throw new UsageError(`--${option} must be a GUID such as 11111111-2222-3333-4444-555555555555`);
  return value;
}

function integerOption(value: unknown, option: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (typeof value !== 'string' || !/^\d+$/.test(value) || n < min || n > max)
    throw new UsageError(
      `--${option} must be an integer from ${min} to ${max}, not ${JSON.stringify(value)}`,
    );
  return n;
}

function bindingsOption(value: unknown): BindingName[] {
  if (value === undefined) return [...BINDINGS];
  const names = String(value)
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const chosen = BINDINGS.filter((b) => names.includes(b));
  const unknown = names.filter((name) => !BINDINGS.some((b) => b === name));
  if (unknown.length > 0 || chosen.length === 0)
    throw new UsageError(
      `--bindings lists bindings from ${BINDINGS.join(', ')}, not ${JSON.stringify(value)}`,
    );
  return chosen;
}

/** An output file's folder must exist and be writable before hours of comparing start. */
function outputFile(value: unknown, option: string): string | undefined {
  if (value === undefined) return undefined;
  const file = String(value);
  try {
    accessSync(path.dirname(path.resolve(file)), constants.W_OK);
  } catch {
    throw new UsageError(`--${option} ${file}: its folder does not exist or is not writable`);
  }
  return file;
}

function readInput(file: string, option: string): string {
  const info = statSync(file, { throwIfNoEntry: false });
  if (!info) throw new UsageError(`--${option} ${file}: no such file`);
  if (!info.isFile()) throw new UsageError(`--${option} ${file}: not a file`);
  if (info.size > MAX_INPUT_BYTES) throw new UsageError(`--${option} ${file}: larger than 512 MB`);
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `--${option} ${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? error})`,
    );
  }
}

async function source(
  values: Record<string, string | boolean | undefined>,
  bindings: readonly BindingName[],
  namespace: string,
): Promise<{ requests: Iterable<ReplayRequest>; total: number; skipped: number }> {
  const given = (['from-bundle', 'har', 'requests'] as const).filter((o) => values[o] !== undefined);
  if (given.length !== 1)
    throw new UsageError(`give exactly one of --from-bundle, --har and --requests\n\n${HELP}`);
  const file = String(values[given[0]!]);
  switch (given[0]!) {
    case 'from-bundle': {
      try {
        const ids = await bundleIds(file);
        return {
          requests: requestsFor(ids, bindings, namespace),
          total: countRequests(ids, bindings),
          skipped: 0,
        };
      } catch (error) {
        if (error instanceof BundleError) throw new UsageError(`--from-bundle ${file}: ${error.message}`);
        throw error;
      }
    }
    case 'har':
      try {
        const har = parseHar(readInput(file, 'har'), bindings);
        return { requests: har.requests, total: har.requests.length, skipped: har.skipped };
      } catch (error) {
        if (error instanceof HarError) throw new UsageError(`--har ${file} ${error.message}`);
        throw error;
      }
    case 'requests':
      try {
        const requests = parseRequestsFile(readInput(file, 'requests'), bindings, namespace);
        return { requests, total: requests.length, skipped: 0 };
      } catch (error) {
        if (error instanceof RequestsFileError) throw new UsageError(`--requests ${file}: ${error.message}`);
        throw error;
      }
  }
}

export async function compareCommand(args: string[]): Promise<number> {
  const parsed = parseCommand(
    args,
    {
      baseline: { type: 'string' },
      candidate: { type: 'string' },
      'baseline-token': { type: 'string' },
      'candidate-token': { type: 'string' },
      'from-bundle': { type: 'string' },
      har: { type: 'string' },
      requests: { type: 'string' },
      bindings: { type: 'string' },
      report: { type: 'string' },
      json: { type: 'string' },
      concurrency: { type: 'string' },
      timeout: { type: 'string' },
      namespace: { type: 'string' },
    },
    HELP,
  );
  if (!parsed) return 0;
  const { values } = parsed;
  if (parsed.positionals.length > 0)
    throw new UsageError(`unexpected argument ${parsed.positionals[0]}\n\n${HELP}`);
  const baselineUrl = baseUrl(values.baseline, 'baseline');
  const candidateUrl = baseUrl(values.candidate, 'candidate');
  const baselineToken = token(values['baseline-token'], 'baseline-token');
  const candidateToken = token(values['candidate-token'], 'candidate-token');
  const bindings = bindingsOption(values.bindings);
  const concurrency = integerOption(values.concurrency, 'concurrency', 4, 1, 256);
  const timeoutMs = integerOption(values.timeout, 'timeout', 30, 1, 3600) * 1000;
  const namespace = typeof values.namespace === 'string' ? values.namespace : DEFAULT_NAMESPACE;
  const reportFile = outputFile(values.report, 'report');
  const jsonFile = outputFile(values.json, 'json');
  const { requests, total, skipped } = await source(values, bindings, namespace);
  if (total === 0) {
    const file = String(values.har ?? values.requests);
    throw new UsageError(
      values.har !== undefined
        ? `--har ${file} holds no calls of the service over ${bindings.join(', ')} (${skipped} entries skipped)`
        : `--requests ${file} holds no calls`,
    );
  }

  const senderOptions = { timeoutMs, keepBytes: COMPARE_KEEP_BYTES, maxSockets: concurrency };
  const baseline: Side = { sender: new HttpSender(baselineUrl, senderOptions), token: baselineToken };
  const candidate: Side = { sender: new HttpSender(candidateUrl, senderOptions), token: candidateToken };
  try {
    for (const [name, side] of [
      ['baseline', baseline],
      ['candidate', candidate],
    ] as const) {
      const trouble = await probeService(side.sender, namespace);
      if (trouble) throw new UsageError(`the ${name} ${side.sender.base.href} ${trouble}`);
    }
    process.stderr.write(
      `comparing ${total} requests${skipped > 0 ? ` (${skipped} HAR entries skipped: not calls of the service over ${bindings.join(', ')})` : ''}\n`,
    );
    const differences: ReportEntry[] = [];
    const failures: ReportEntry[] = [];
    let notListed = 0;
    const tally = await compareAll(requests, baseline, candidate, concurrency, (compared) => {
      process.stdout.write(`${formatCompared(compared)}\n\n`);
      const list = compared.verdict.outcome === 'different' ? differences : failures;
      if (differences.length + failures.length < MAX_LISTED) list.push(entryOf(compared));
      else notListed++;
    });
    const byIndex = (a: ReportEntry, b: ReportEntry) => a.index - b.index;
    const report = {
      title: 'scoop compare',
      baseline: baselineUrl.href,
      candidate: candidateUrl.href,
      generated: new Date().toISOString(),
      summary: tally,
      skipped,
      differences: differences.sort(byIndex),
      failures: failures.sort(byIndex),
      notListed,
    };
    if (jsonFile) writeFileSync(jsonFile, `${JSON.stringify(report, null, 2)}\n`);
    if (reportFile) writeFileSync(reportFile, renderHtml(report));
    process.stdout.write(`${summaryLine(tally)}\n`);
    return tally.different + tally.failed === 0 ? 0 : 1;
  } finally {
    baseline.sender.close();
    candidate.sender.close();
  }
}
