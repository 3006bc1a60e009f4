/**
 * Where `serve --shadow` keeps the last differing exchanges for inspection
 * (SCOOP_SHADOW_DIR): each as `<time>-<request id>.json` (the compare report's entry)
 * and `.html` (compare's HTML report of that one exchange), the newest KEPT of them, and
 * `report.html` with all of them, rewritten at most every REPORT_INTERVAL_MS. Files are
 * written whole and renamed into place (cache/bounded-folder.ts), so workers sharing
 * the folder never read half a file; a byte bound caps it besides the count.
 */
import { readFile } from 'node:fs/promises';
import { BoundedFolder } from '../cache/bounded-folder.ts';
import type { CompareReport, ReportEntry } from '../migrate/compare/report.ts';
import { renderHtml } from '../migrate/compare/report-html.ts';
import type { Tally } from '../migrate/compare/run-compare.ts';

/** How many differing exchanges are kept. */
export const KEPT_EXCHANGES = 100;
/** Each exchange's files are bounded (a request view, a bounded diff); this bounds them all. */
const MAX_FOLDER_BYTES = 256 * 1024 * 1024;
const REPORT_INTERVAL_MS = 5000;
/** Differences waiting to be written; more meanwhile are counted and logged, not kept. */
const MAX_PENDING_WRITES = 16;
const ENTRY = /^\d{8}T\d{9}Z-[A-Za-z0-9._:-]{1,128}\.(json|html)$/;

export interface ShadowReportHeading {
  readonly original: string;
  /** Counts of this process since it started. */
  tally(): Tally;
}

export class ShadowFolder {
  private chain: Promise<void> = Promise.resolve();
  private pending = 0;
  private reportDue: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(
    private readonly folder: BoundedFolder,
    private readonly heading: ShadowReportHeading,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Throws CacheDirError when the folder cannot be made or written. */
  static async open(
    dir: string,
    heading: ShadowReportHeading,
    onError: (error: unknown) => void,
  ): Promise<ShadowFolder> {
    const folder = await BoundedFolder.open({
      cache: 'shadow',
      dir,
      maxBytes: MAX_FOLDER_BYTES,
      isEntry: (name) => ENTRY.test(name),
    });
    return new ShadowFolder(folder, heading, onError);
  }

  get dir(): string {
    return this.folder.dir;
  }

  /** Keeps one exchange, in the background; false when too many writes are waiting. */
  keep(entry: ReportEntry): boolean {
    if (this.closed || this.pending >= MAX_PENDING_WRITES) return false;
    this.pending++;
    this.chain = this.chain
      .then(() => this.write(entry))
      .catch(this.onError)
      .finally(() => {
        this.pending--;
      });
    return true;
  }

  /** Resolves when every write asked for so far is done (tests, shutdown). */
  async settled(): Promise<void> {
    await this.chain;
  }

  /** Finishes the writes under way, and the report if one is due. */
  async close(): Promise<void> {
    this.closed = true;
    await this.chain;
    if (this.reportDue) {
      clearTimeout(this.reportDue);
      this.reportDue = undefined;
      await this.writeReport().catch(this.onError);
    }
  }

  private async write(entry: ReportEntry): Promise<void> {
    const stem = `${entry.at!.replace(/[-:.]/g, '')}-${entry.requestId}`;
    await this.place(`${stem}.json`, `${JSON.stringify(entry, null, 2)}\n`);
    await this.place(`${stem}.html`, renderHtml(this.report([entry])));
    await this.trim();
    this.reportDue ??= setTimeout(() => {
      this.reportDue = undefined;
      this.chain = this.chain.then(() => this.writeReport()).catch(this.onError);
    }, REPORT_INTERVAL_MS).unref();
  }

  private async place(name: string, text: string): Promise<void> {
    const temporary = await this.folder.writeTemporary(name, Buffer.from(text, 'utf8'));
    await this.folder.place(temporary, name);
  }

  /** The newest KEPT_EXCHANGES by name (their time comes first), and the byte bound. */
  private async trim(): Promise<void> {
    const names = (await this.folder.entries()).map((e) => e.name).filter((n) => n.endsWith('.json'));
    names.sort();
    for (const name of names.slice(0, Math.max(0, names.length - KEPT_EXCHANGES))) {
      await this.folder.remove(name);
      await this.folder.remove(name.replace(/\.json$/, '.html'));
    }
    await this.folder.trim();
  }

  /** The kept exchanges, newest first. */
  async entries(): Promise<ReportEntry[]> {
    const names = (await this.folder.entries()).map((e) => e.name).filter((n) => n.endsWith('.json'));
    names.sort().reverse();
    const entries: ReportEntry[] = [];
    for (const name of names) {
      const text = await readFile(this.folder.path(name), 'utf8').catch(() => undefined);
      if (text !== undefined) entries.push(JSON.parse(text) as ReportEntry);
    }
    return entries;
  }

  private async writeReport(): Promise<void> {
    await this.place('report.html', renderHtml(this.report(await this.entries())));
  }

  private report(entries: readonly ReportEntry[]): CompareReport {
    return {
      title: 'scoop serve --shadow',
      baseline: this.heading.original,
      candidate: 'this scoop instance',
      generated: new Date().toISOString(),
      summary: this.heading.tally(),
      skipped: 0,
      differences: entries,
      failures: [],
      notListed: 0,
    };
  }
}
