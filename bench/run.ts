/**
 * `npm run bench`: runs the benchmarks (today: images), prints a table and writes JSON
 * to bench/results/ (not committed). Not part of `npm test`: it takes about half a
 * minute and its figures depend on the machine.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import path from 'node:path';
import { benchImages } from './images.ts';

const RESULTS = path.resolve('bench/results');

const round = (n: number, digits = 1) => Number(n.toFixed(digits));

const machine = {
  node: process.version,
  cpus: availableParallelism(),
  cpu: cpus()[0]?.model ?? 'unknown',
  date: new Date().toISOString(),
};

process.stderr.write('images: generating a 12 MP JPEG and starting a server…\n');
const images = await benchImages();

const rows: Array<[string, string]> = [
  [
    'source',
    `${images.source.width}×${images.source.height} JPEG, ${round(images.source.bytes / 2 ** 20, 2)} MiB`,
  ],
  ['resize slots', String(images.resizeConcurrency)],
  [
    'cold resize 800×600 crop (median)',
    `${round(images.cold.medianMs)} ms (min ${round(images.cold.minMs)}, max ${round(images.cold.maxMs)}, ${images.cold.runs} runs)`,
  ],
  [
    'cache hits',
    `${round(images.hits.perSecond, 0)} req/s (median ${round(images.hits.medianMs)} ms, ${images.hits.connections} connections, ${images.hits.seconds} s)`,
  ],
  [
    `${images.storm.requests} concurrent distinct resizes`,
    `${images.storm.ok} ok, ${images.storm.busy} busy, ${round(images.storm.wallMs)} ms wall`,
  ],
  [
    'server RSS',
    `${round(images.rssMb.idle)} MB idle, ${round(images.rssMb.afterCold)} after cold, ${round(images.rssMb.afterHits)} after hits`,
  ],
  [
    'server RSS, storm',
    `${round(images.storm.baselineRssMb)} MB before, ${round(images.storm.peakRssMb)} MB peak`,
  ],
  [
    'getBereich during the storm',
    `median ${round(images.storm.bereichMedianMs)} ms, max ${round(images.storm.bereichMaxMs)} ms`,
  ],
];
const width = Math.max(...rows.map(([k]) => k.length));
process.stdout.write(`\n${rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n')}\n`);

mkdirSync(RESULTS, { recursive: true });
const file = path.join(RESULTS, 'images.json');
writeFileSync(file, `${JSON.stringify({ machine, images }, null, 2)}\n`);
process.stdout.write(`\nwritten to ${path.relative(process.cwd(), file)}\n`);
