/**
 * The limit settings reach the server: `scoop serve` started with small values in its
 * environment refuses, with the documented code, each request that goes beyond them —
 * requests that a server with the defaults answers, so each refusal is the setting's doing.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { scoopArgs } from '../bench/node-flags.ts';
import type { ErrorCode } from '../src/contract/errors.ts';
import { scratch } from './support/bundles.ts';
import { sendRaw } from './support/raw-http.ts';
import { listeningUrl, serveProcesses } from './support/serve-process.ts';

const DEMO = path.resolve('examples/demo-bundle');
const NS = 'http://scoop.example.org/api';
const PUBLIC = '/scoop/api/v6/public.asmx';
const s = scratch();
const serves = serveProcesses();

const SMALL = {
  SCOOP_MAX_BODY_BYTES: '2048',
  SCOOP_MAX_LIST_ITEMS: '2',
  SCOOP_MAX_IMAGE_DIMENSION: '100',
  SCOOP_MAX_HEADERS: '10',
  SCOOP_MAX_HEADER_BYTES: '2048',
  SCOOP_XML_MAX_DEPTH: '6',
  SCOOP_XML_MAX_ELEMENTS: '20',
  SCOOP_XML_MAX_ATTRIBUTES: '5',
  SCOOP_XML_MAX_NAME_LENGTH: '20',
  SCOOP_XML_MAX_TEXT_LENGTH: '100',
  SCOOP_XML_MAX_DOCUMENT_ATTRIBUTES: '8',
  SCOOP_XML_MAX_ATTRIBUTE_LENGTH: '64',
  SCOOP_LISTEN_BACKLOG: '123',
};

function get(target: string, headers: readonly string[] = []): Buffer {
  return Buffer.from(
    [`GET ${target} HTTP/1.1`, 'Host: localhost', ...headers, 'Connection: close', '', ''].join('\r\n'),
    'latin1',
  );
}

function post(target: string, contentType: string, body: string): Buffer {
  const payload = Buffer.from(body, 'utf8');
  const head = [
    `POST ${target} HTTP/1.1`,
    'Host: localhost',
    `Content-Type: ${contentType}`,
    `Content-Length: ${payload.length}`,
    'Connection: close',
    '',
    '',
  ].join('\r\n');
  return Buffer.concat([Buffer.from(head, 'latin1'), payload]);
}

/** A SOAP 1.1 getBereich whose operation element holds `inside` besides the parameter. */
function soap(inside: string, attributes = '', id = '1'): Buffer {
  return post(
    PUBLIC,
    'text/xml; charset=utf-8',
    `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><getBereich xmlns="${NS}"${attributes}><bereichID>${id}</bereichID>${inside}</getBereich></soap:Body></soap:Envelope>`,
  );
}

const nested = (depth: number) => `${'<x>'.repeat(depth)}${'</x>'.repeat(depth)}`;

interface Case {
  readonly setting: string;
  readonly request: Buffer;
  readonly code: ErrorCode;
}

const CASES: readonly Case[] = [
  {
    setting: 'SCOOP_MAX_BODY_BYTES',
    request: post(
      `${PUBLIC}/getBereich`,
      'application/x-www-form-urlencoded',
      `bereichID=1&pad=${'a'.repeat(3000)}`,
    ),
    code: 'BODY_TOO_LARGE',
  },
  {
    setting: 'SCOOP_MAX_LIST_ITEMS',
    request: get(`${PUBLIC}/getBild?bildID=201&width=0&height=0&resizeModes=fit,crop,standard`),
    code: 'TOO_MANY_VALUES',
  },
  {
    setting: 'SCOOP_MAX_IMAGE_DIMENSION',
    request: get(`${PUBLIC}/getBild?bildID=201&width=200&height=0&resizeModes=fit`),
    code: 'INVALID_PARAMETER',
  },
  {
    setting: 'SCOOP_MAX_HEADERS',
    request: get(
      `${PUBLIC}/getBereich?bereichID=1`,
      Array.from({ length: 12 }, (_, i) => `X-H${i}: ${i}`),
    ),
    code: 'HEADERS_TOO_LARGE',
  },
  {
    setting: 'SCOOP_MAX_HEADER_BYTES',
    request: get(`${PUBLIC}/getBereich?bereichID=1`, [`X-Long: ${'b'.repeat(3000)}`]),
    code: 'HEADERS_TOO_LARGE',
  },
  // Envelope, Body, getBereich, then <x> seven deep: 10 levels.
  { setting: 'SCOOP_XML_MAX_DEPTH', request: soap(nested(7)), code: 'XML_LIMIT_EXCEEDED' },
  { setting: 'SCOOP_XML_MAX_ELEMENTS', request: soap('<x/>'.repeat(25)), code: 'XML_LIMIT_EXCEEDED' },
  {
    setting: 'SCOOP_XML_MAX_ATTRIBUTES',
    request: soap('', ' a="1" b="2" c="3" d="4" e="5" f="6"'),
    code: 'XML_LIMIT_EXCEEDED',
  },
  { setting: 'SCOOP_XML_MAX_NAME_LENGTH', request: soap(`<${'n'.repeat(30)}/>`), code: 'XML_LIMIT_EXCEEDED' },
  {
    setting: 'SCOOP_XML_MAX_TEXT_LENGTH',
    request: soap('', '', `${' '.repeat(150)}1`),
    code: 'XML_LIMIT_EXCEEDED',
  },
  // Two declarations on the envelope and the operation, and 4 + 4 here: 10, each element under 5.
  {
    setting: 'SCOOP_XML_MAX_DOCUMENT_ATTRIBUTES',
    request: soap('<x a="1" b="2" c="3" d="4"/><y a="1" b="2" c="3" d="4"/>'),
    code: 'XML_LIMIT_EXCEEDED',
  },
  {
    setting: 'SCOOP_XML_MAX_ATTRIBUTE_LENGTH',
    request: soap(`<x a="${'v'.repeat(80)}"/>`),
    code: 'XML_LIMIT_EXCEEDED',
  },
];

/** The catalogue code of an answer (HTTP error body or SOAP fault detail); 'ok' for a 200. */
function codeOf(status: number, body: string): string {
  if (status === 200) return 'ok';
  return /<(?:code|errorCode)[^>]*>([A-Z_]+)</.exec(body)?.[1] ?? `status ${status}`;
}

describe('limit settings from the environment', () => {
  let small: number;
  let defaults: number;

  before(async () => {
    const a = serves.start(['--port', '0', '--db', s.dbPath(), '--seed', DEMO], SMALL);
    const b = serves.start(['--port', '0', '--db', s.dbPath(), '--seed', DEMO]);
    small = Number(new URL(String((await listeningUrl(a)).url)).port);
    defaults = Number(new URL(String((await listeningUrl(b)).url)).port);
  });

  test('an ordinary request passes the small limits', async () => {
    for (const request of [get(`${PUBLIC}/getBereich?bereichID=1`), soap('')]) {
      const answer = await sendRaw(small, request);
      assert.equal(codeOf(answer.status, answer.body.toString()), 'ok', answer.body.toString());
    }
  });

  test("SCOOP_LISTEN_BACKLOG sets the listening socket's queue (ss shows it as Send-Q), 4096 by default", () => {
    // For a listening TCP socket, `ss -ltn` shows the backlog in its Send-Q column.
    const backlog = (port: number) => {
      const line = execFileSync('ss', ['-Hltn', `sport = :${port}`], { encoding: 'utf8' }).trim();
      return Number(line.split(/\s+/)[2]);
    };
    assert.equal(backlog(small), 123);
    const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));
    assert.equal(backlog(defaults), Math.min(4096, somaxconn));
  });

  for (const c of CASES) {
    test(`${c.setting}: refused as ${c.code} beyond it, answered with the default`, async () => {
      const refused = await sendRaw(small, c.request);
      assert.equal(codeOf(refused.status, refused.body.toString()), c.code, refused.body.toString());
      const answered = await sendRaw(defaults, c.request);
      assert.equal(codeOf(answered.status, answered.body.toString()), 'ok', answered.body.toString());
    });
  }
});

test('a head timeout longer than the request timeout is refused at start, naming both settings', async () => {
  const child = spawn(process.execPath, scoopArgs(['serve', '--port', '0', '--db', s.dbPath()]), {
    env: {
      ...process.env,
      SCOOP_ADMIN_PORT: 'off',
      SCOOP_HEADERS_TIMEOUT_MS: '5000',
      SCOOP_REQUEST_TIMEOUT_MS: '1000',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  assert.equal(code, 2);
  assert.match(stderr, /SCOOP_HEADERS_TIMEOUT_MS \(5000\) must not exceed SCOOP_REQUEST_TIMEOUT_MS \(1000\)/);
});
