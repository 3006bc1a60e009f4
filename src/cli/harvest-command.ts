import { HarvestStopped, harvest } from '../migrate/harvest/harvest.ts';
import { type IdRange, IdRangeError, parseIdRanges } from '../migrate/harvest/id-ranges.ts';
import { RANGE_OPTIONS, type RangeOption } from '../migrate/harvest/plan.ts';
import { formatCounts, jsonProgress, terminalProgress } from '../migrate/harvest/progress.ts';
import { BaseUrlError, displayUrl, parseBaseUrl } from '../migrate/wire-client.ts';
import { DEFAULT_NAMESPACE } from '../server/settings.ts';
import { parseCommand, UsageError } from './usage.ts';

const HELP = `Usage: scoop harvest --from BASE_URL --out DIR [--token GUID] [--namespace NS]
                     [--artikel IDS] [--bereiche IDS] [--city-app-bereiche IDS]
                     [--anhaenge IDS] [--bilder IDS] [--emails FILE]
                     [--concurrency N] [--rate PER_SECOND] [--resume] [--progress=json]

Asks a running service of this wire (the original ASMX service, or scoop) for its
content, through its SOAP 1.1 API, and writes it as a bundle (scoop-bundle/1, mode
replace) that "scoop import" loads: see docs/migration.md. The bundle appears in DIR
only when it is complete; until then the harvest writes DIR.partial.

IDS is a list of ids and inclusive ranges, e.g. 1-5000,7000-7100,2147483647. An id the
service does not know is skipped and counted.

Options:
  --from BASE_URL    the service's base URL, e.g. https://cms.example.org
                     (its endpoints are BASE_URL/scoop/api/v6/public.asmx, …)
  --out DIR          the bundle folder: new, empty, or an earlier harvest's (replaced)
  --token GUID       the wsAuthHeader token scoop.asmx operations need (articles,
                     city-app areas, newsletters, subscriptions); or SCOOP_HARVEST_TOKEN,
                     which, unlike an argument, no other user sees in the process list
  --namespace NS     the service's XML namespace (default ${DEFAULT_NAMESPACE})
  --artikel IDS      articles (getArtikelDetails; brings their areas, city-app areas
                     and attachments along)
  --bereiche IDS     areas (getBereich)
  --city-app-bereiche IDS
                     city-app areas (getCityAppBereich)
  --anhaenge IDS     attachments (getAnhang)
  --bilder IDS       images, as stored (getBild with width and height 0)
  --emails FILE      subscriber addresses, one a line (getAbonnierteNewsletter); with
                     --token the public newsletters are harvested too (getNewsletter)
  --concurrency N    requests in flight at most (default 4)
  --rate PER_SECOND  requests started per second at most (default: no limit)
  --resume           go on with an interrupted harvest into the same DIR, without
                     asking again for what it has
  --progress=json    progress and warnings as JSON lines (the default when stderr is
                     not a terminal)

Exit codes: 0 the bundle is complete; 1 the service failed or stopped answering (what
was harvested is kept for --resume); 2 a mistake in the options, a token or namespace
the service refuses, or an endpoint that is not this service; 130 interrupted.`;

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function stringOption(
  values: Record<string, string | boolean | undefined>,
  name: string,
): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

function positiveNumber(
  name: string,
  text: string | undefined,
  integer: boolean,
  max: number,
): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (
    text.trim() === '' ||
    !Number.isFinite(value) ||
    value <= 0 ||
    value > max ||
    (integer && !Number.isInteger(value))
  )
    throw new UsageError(
      `--${name} must be a ${integer ? 'whole ' : ''}number from ${integer ? 1 : 'above 0'} to ${max}, not ${JSON.stringify(text)}`,
    );
  return value;
}

/** The options `scoop harvest` takes (docs/migration.md's units are checked against them). */
export const HARVEST_OPTIONS = {
  from: { type: 'string' },
  out: { type: 'string' },
  token: { type: 'string' },
  namespace: { type: 'string' },
  emails: { type: 'string' },
  concurrency: { type: 'string' },
  rate: { type: 'string' },
  resume: { type: 'boolean' },
  progress: { type: 'string' },
  ...Object.fromEntries(RANGE_OPTIONS.map(({ option }) => [option, { type: 'string' }])),
} as const;

export async function harvestCommand(args: string[]): Promise<number> {
  const parsed = parseCommand(args, HARVEST_OPTIONS, HELP);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length > 0)
    throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}\n\n${HELP}`);
  const fromText = stringOption(values, 'from');
  const out = stringOption(values, 'out');
  if (fromText === undefined) throw new UsageError(`--from BASE_URL is required\n\n${HELP}`);
  if (out === undefined || out.trim() === '') throw new UsageError(`--out DIR is required\n\n${HELP}`);
  let from: URL;
  try {
    from = parseBaseUrl(fromText);
  } catch (error) {
    if (error instanceof BaseUrlError) throw new UsageError(`--from: ${error.message}`);
    throw error;
  }
  const fromEnvironment = process.env.SCOOP_HARVEST_TOKEN?.trim() || undefined;
  const token = stringOption(values, 'token') ?? fromEnvironment;
  if (token !== undefined && !GUID.test(token))
    throw new UsageError(
      `${stringOption(values, 'token') === undefined ? 'SCOOP_HARVEST_TOKEN' : '--token'} must be a GUID such as 11111111-2222-3333-4444-555555555555`,
    );
  const namespace = stringOption(values, 'namespace') ?? DEFAULT_NAMESPACE;
  try {
    new URL(namespace);
  } catch {
    throw new UsageError(
      `--namespace must be an absolute URI such as ${DEFAULT_NAMESPACE}, not ${JSON.stringify(namespace)}`,
    );
  }
  const ranges: Partial<Record<RangeOption, readonly IdRange[]>> = {};
  for (const { option } of RANGE_OPTIONS) {
    const text = stringOption(values, option);
    if (text === undefined) continue;
    try {
      ranges[option] = parseIdRanges(text);
    } catch (error) {
      if (error instanceof IdRangeError) throw new UsageError(`--${option}: ${error.message}`);
      throw error;
    }
  }
  const emails = stringOption(values, 'emails');
  const needsToken = [
    ranges.artikel && '--artikel',
    ranges['city-app-bereiche'] && '--city-app-bereiche',
    emails !== undefined && '--emails',
  ].filter((x): x is string => typeof x === 'string');
  if (needsToken.length > 0 && token === undefined)
    throw new UsageError(
      `${needsToken.join(', ')} call${needsToken.length === 1 ? 's' : ''} scoop.asmx operations, which need --token`,
    );
  if (Object.keys(ranges).length === 0 && emails === undefined && token === undefined)
    throw new UsageError(
      `nothing to harvest: name ids (--artikel, --bereiche, …), --emails or --token\n\n${HELP}`,
    );
  const concurrency = positiveNumber('concurrency', stringOption(values, 'concurrency'), true, 64) ?? 4;
  const rate = positiveNumber('rate', stringOption(values, 'rate'), false, 100_000);
  const progress = stringOption(values, 'progress');
  if (progress !== undefined && progress !== 'json')
    throw new UsageError(`--progress takes only "json" (--progress=json), not ${JSON.stringify(progress)}`);
  const json = progress === 'json' || process.stderr.isTTY !== true;
  const display = json ? jsonProgress(process.stderr) : terminalProgress(process.stderr);

  const interrupt = new AbortController();
  const onSignal = () => interrupt.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const summary = await harvest({
      from,
      out,
      namespace,
      token,
      ranges,
      emails,
      concurrency,
      rate,
      resume: values.resume === true,
      display,
      signal: interrupt.signal,
    });
    if (json) {
      process.stdout.write(`${JSON.stringify({ event: 'summary', ...summary, counts: summary.counts })}\n`);
    } else {
      const rate = summary.seconds > 0 ? (summary.requests / summary.seconds).toFixed(0) : '–';
      process.stdout.write(
        `Harvested ${displayUrl(from)} into ${out} (${summary.requests} requests in ${summary.seconds.toFixed(1)} s, ${rate}/s${summary.warnings > 0 ? `, ${summary.warnings} warnings` : ''}):\n${formatCounts(summary.counts)}\n`,
      );
    }
    return 0;
  } catch (error) {
    if (error instanceof HarvestStopped) {
      process.stderr.write(`scoop harvest: ${error.message}\n`);
      return error.exitCode;
    }
    // A folder it cannot write, a full disk: the operating system's word for it, one line.
    if (isSystemError(error)) {
      process.stderr.write(
        `scoop harvest: cannot ${error.syscall} ${error.path ?? ''}: ${error.code} (${error.message.replace(/^[A-Z]+: /, '').split(',')[0]}); what was harvested is kept in ${out}.partial for --resume\n`,
      );
      return 1;
    }
    throw error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

function isSystemError(error: unknown): error is Error & { syscall: string; code: string; path?: string } {
  return (
    error instanceof Error &&
    'syscall' in error &&
    typeof error.syscall === 'string' &&
    'code' in error &&
    typeof error.code === 'string'
  );
}
