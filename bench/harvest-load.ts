/**
 * The plain load client of the harvest benchmark (bench/harvest.ts): the same SOAP 1.1
 * requests a harvest of `--artikel 1-N` with a token sends (getArtikelDetails for each id,
 * and getNewsletter), encoded the same way (protocol/client-request.ts), at the same
 * concurrency over keep-alive connections; each answer is read to its end and dropped.
 * Prints one JSON line: requests, seconds (first request to last answer), bytes.
 *
 *   node --import tsx bench/harvest-load.ts URL TOKEN ARTICLES CONCURRENCY
 */
import http from 'node:http';
import { OPERATIONS } from '../src/contract/operations.ts';
import { encodeRequest } from '../src/protocol/client-request.ts';
import { DEFAULT_NAMESPACE } from '../src/server/settings.ts';

const [url, token, articles, concurrency] = process.argv.slice(2);
const base = new URL(url!);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(concurrency) });
const getArtikelDetails = OPERATIONS.find((o) => o.name === 'getArtikelDetails')!;
const getNewsletter = OPERATIONS.find((o) => o.name === 'getNewsletter')!;
const options = { namespace: DEFAULT_NAMESPACE, token };

function* requests() {
  for (let id = 1; id <= Number(articles); id++)
    yield encodeRequest('soap11', getArtikelDetails, { artikelID: id }, options);
  yield encodeRequest('soap11', getNewsletter, {}, options);
}

function send(request: ReturnType<typeof encodeRequest>): Promise<number> {
  const body = Buffer.from(request.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        hostname: base.hostname,
        port: base.port,
        method: request.method,
        path: request.path,
        headers: { ...request.headers, 'content-length': String(body.length) },
        agent,
      },
      (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
        });
        res.on('end', () => resolve(bytes));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const queue = requests();
let count = 0;
let bytes = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: Number(concurrency) }, async () => {
    for (let next = queue.next(); !next.done; next = queue.next()) {
      const received = await send(next.value);
      bytes += received;
      count++;
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
agent.destroy();
process.stdout.write(`${JSON.stringify({ requests: count, seconds, bytes })}\n`);
