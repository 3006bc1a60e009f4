/**
 * The requests a harvest makes, as one numbered sequence: a segment per operation, in the
 * order below, each walked lazily. A position in the sequence is all a resumed harvest
 * needs to know where to go on. Segments run one after the other, so an area that came
 * with an article is in the bundle before the area ids are walked (and not asked again),
 * and the public newsletters are known before the subscriptions name any.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { RecordKind } from '../../contract/documents.ts';
import type { Arguments, OperationName } from '../../contract/operations.ts';
import { countIds, type IdRange, idsFrom } from './id-ranges.ts';

/** The options that take IDS, with the operation each calls and the kind it harvests. */
export const RANGE_OPTIONS = [
  { option: 'artikel', operation: 'getArtikelDetails', parameter: 'artikelID', kind: 'artikel' },
  { option: 'bereiche', operation: 'getBereich', parameter: 'bereichID', kind: 'bereiche' },
  {
    option: 'city-app-bereiche',
    operation: 'getCityAppBereich',
    parameter: 'cityAppBereichID',
    kind: 'cityAppBereiche',
  },
  { option: 'anhaenge', operation: 'getAnhang', parameter: 'anhangID', kind: 'anhaenge' },
  { option: 'bilder', operation: 'getBild', parameter: 'bildID', kind: 'bilder' },
] as const satisfies ReadonlyArray<{
  option: string;
  operation: OperationName;
  parameter: string;
  kind: RecordKind;
}>;

export type RangeOption = (typeof RANGE_OPTIONS)[number]['option'];

export interface Job {
  readonly operation: OperationName;
  readonly args: Arguments;
  /** The id asked for (undefined for getNewsletter and subscriptions). */
  readonly id: number | undefined;
  /** How the job is named in messages: `getBereich(bereichID 7)`, `getAbonnierteNewsletter(line 12)`. */
  readonly label: string;
}

export interface Segment {
  readonly operation: OperationName;
  readonly kind: RecordKind;
  readonly size: number;
  /** The jobs from the `skip`-th on. */
  jobs(skip: number): AsyncIterable<Job>;
}

export interface PlanOptions {
  readonly ranges: Partial<Record<RangeOption, readonly IdRange[]>>;
  /** Call getNewsletter (it needs a token). */
  readonly newsletters: boolean;
  /** The file of subscriber addresses, and how many it holds. */
  readonly emails: { readonly file: string; readonly count: number } | undefined;
}

/** getBild asks for the stored original: width and height 0, no resize mode. */
function argsOf(parameter: string, operation: OperationName, id: number): Arguments {
  return operation === 'getBild' ? { bildID: id, width: 0, height: 0, resizeModes: [] } : { [parameter]: id };
}

export function planOf(options: PlanOptions): Segment[] {
  const segments: Segment[] = [];
  for (const { option, operation, parameter, kind } of RANGE_OPTIONS) {
    const ranges = options.ranges[option];
    if (!ranges) continue;
    segments.push({
      operation,
      kind,
      size: countIds(ranges),
      async *jobs(skip) {
        for (const id of idsFrom(ranges, skip))
          yield {
            operation,
            args: argsOf(parameter, operation, id),
            id,
            label: `${operation}(${parameter} ${id})`,
          };
      },
    });
  }
  if (options.newsletters) {
    segments.push({
      operation: 'getNewsletter',
      kind: 'newsletter',
      size: 1,
      async *jobs(skip) {
        if (skip === 0) yield { operation: 'getNewsletter', args: {}, id: undefined, label: 'getNewsletter' };
      },
    });
  }
  const emails = options.emails;
  if (emails) {
    segments.push({
      operation: 'getAbonnierteNewsletter',
      kind: 'abonnements',
      size: emails.count,
      async *jobs(skip) {
        let n = 0;
        for await (const { email, line } of addresses(emails.file)) {
          if (n++ < skip) continue;
          // Named by line, never by address: addresses stay out of terminals and logs.
          yield {
            operation: 'getAbonnierteNewsletter',
            args: { email },
            id: undefined,
            label: `getAbonnierteNewsletter(line ${line})`,
          };
        }
      },
    });
  }
  return segments;
}

/** The addresses of an --emails file: one a line, trimmed; blank lines skipped. */
export async function* addresses(file: string): AsyncGenerator<{ email: string; line: number }> {
  const lines = createInterface({
    input: createReadStream(file, 'utf8'),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let line = 0;
  for await (const text of lines) {
    line++;
    const email = (line === 1 ? text.replace(/^\uFEFF/, '') : text).trim();
    if (email !== '') yield { email, line };
  }
}
