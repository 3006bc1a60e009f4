/**
 * The peer (issue 7 item 2): the npm `soap` package — the usual choice for a SOAP server
 * in Node — serving our operations from our own WSDL over the same data. The values come
 * from our store and our HANDLERS (so only the SOAP layer differs): each service function
 * checks the wsAuthHeader token with our Authenticator on `scoop.asmx` endpoints, calls the
 * handler, and hands node-soap a plain object in the contract's field order, binaries as
 * base64 strings (what node-soap expects). node-soap does the rest: parsing the envelope,
 * dispatch, serialising by the WSDL's schema.
 *
 * node-soap answers with one envelope version per listener (`forceSoap12Headers`), so
 * endpoint paths named with `--soap12` answer SOAP 1.2, the others SOAP 1.1.
 *
 * Run as its own process:
 *   node --import tsx bench/peer.ts --db <store> --wsdl-from <our base URL> [--soap12 <path>]…
 * prints `{"url": …}` when it listens.
 */
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import * as soap from 'soap';
import { Authenticator } from '../src/auth/authenticator.ts';
import { isScoopError } from '../src/contract/errors.ts';
import { type Arguments, ENDPOINTS, type Operation, operationsAt } from '../src/contract/operations.ts';
import type { ValueType } from '../src/contract/schema.ts';
import type { ResizeMode } from '../src/contract/types.ts';
import { ImageService } from '../src/images/image-service.ts';
import { invoke } from '../src/service/invoke.ts';
import { openStore } from '../src/store/open-store.ts';
import type { Binary } from '../src/xml/binary.ts';

async function base64(value: Binary): Promise<string> {
  if (value instanceof Uint8Array)
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  const chunks: Uint8Array[] = [];
  for await (const chunk of value.chunks()) chunks.push(chunk);
  return Buffer.concat(chunks).toString('base64');
}

/** A handler's result → node-soap's object shape: fields in schema order, arrays under their item name. */
async function toSoap(type: ValueType, value: unknown): Promise<unknown> {
  switch (type.kind) {
    case 'scalar':
      return type.name === 'base64Binary' ? base64(value as Binary) : value;
    case 'enum':
      return value;
    case 'array': {
      const items = value as unknown[];
      return { [type.itemName]: await Promise.all(items.map((item) => toSoap(type.item, item))) };
    }
    case 'complex': {
      const record = value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const f of type.fields) {
        const v = record[f.name];
        if (v === undefined || v === null) {
          if (f.nillable) out[f.name] = null;
          continue;
        }
        out[f.name] = await toSoap(f.type, v);
      }
      return out;
    }
  }
}

/** node-soap's parsed arguments → the handler's typed arguments. */
function argumentsOf(op: Operation, args: Record<string, unknown> | undefined): Arguments {
  const out: Record<string, Arguments[string]> = {};
  for (const f of op.params) {
    const raw = args?.[f.name];
    if (f.type.kind === 'array') {
      const items = (raw as Record<string, unknown> | undefined)?.[f.type.itemName];
      out[f.name] = (items === undefined ? [] : Array.isArray(items) ? items : [items]) as ResizeMode[];
    } else if (f.type.kind === 'scalar' && f.type.name === 'int') {
      out[f.name] = Number(raw);
    } else {
      out[f.name] = raw === undefined ? '' : String(raw);
    }
  }
  return out;
}

function fault(code: string, message: string, soap12: boolean): { Fault: unknown } {
  return soap12
    ? { Fault: { Code: { Value: 'soap:Sender' }, Reason: { Text: `${code}: ${message}` }, statusCode: 500 } }
    : { Fault: { faultcode: 'soap:Client', faultstring: `${code}: ${message}`, statusCode: 500 } };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      db: { type: 'string' },
      'wsdl-from': { type: 'string' },
      soap12: { type: 'string', multiple: true },
    },
  });
  const store = await openStore(values.db!, { serving: true });
  const authenticator = new Authenticator(store);
  const context = {
    store,
    now: Date.now,
    options: { maxImageDimension: 4096 },
    images: ImageService.uncached(),
  };
  const soap12Paths = new Set(values.soap12 ?? []);
  const server = createServer((_req, res) => {
    res.writeHead(404).end();
  });
  for (const endpoint of ENDPOINTS) {
    const soap12 = soap12Paths.has(endpoint.path);
    const wsdlResponse = await fetch(`${values['wsdl-from']}${endpoint.path}?wsdl`);
    if (!wsdlResponse.ok) throw new Error(`no WSDL for ${endpoint.path}: ${wsdlResponse.status}`);
    const xml = await wsdlResponse.text();
    const methods: Record<string, soap.ISoapServiceMethod> = {};
    for (const op of operationsAt(endpoint)) {
      methods[op.name] = async (args: Record<string, unknown>, _callback?: unknown, headers?: unknown) => {
        try {
          if (endpoint.requiresToken) {
            const token = (headers as { wsAuthHeader?: { token?: unknown } } | undefined)?.wsAuthHeader
              ?.token;
            await authenticator.verify(typeof token === 'string' ? token : undefined);
          }
          const result = await invoke(op, argumentsOf(op, args), context);
          return { [`${op.name}Result`]: await toSoap(op.result, result) };
        } catch (error) {
          if (isScoopError(error)) throw fault(error.code, error.message, soap12);
          throw error;
        }
      };
    }
    const svc = endpoint.serviceName;
    const ports = {
      [`${svc}Soap`]: methods,
      [`${svc}Soap12`]: methods,
      [`${svc}HttpGet`]: methods,
      [`${svc}HttpPost`]: methods,
    };
    await new Promise<void>((resolve, reject) => {
      soap.listen(server, {
        path: endpoint.path,
        services: { [svc]: ports },
        xml,
        forceSoap12Headers: soap12,
        suppressStack: true,
        callback: (err: unknown) => (err ? reject(err) : resolve()),
      } as soap.IServerOptions);
    });
  }
  server.keepAliveTimeout = 5000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
  });
  process.once('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    void store.close();
  });
}

await main();
