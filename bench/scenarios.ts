/**
 * The measured requests (issue 7 item 1) and their targets (item 3). Each scenario is one
 * exact HTTP request, sent unchanged to our server, the ceiling and the peer; the
 * `x-bench-scenario` header lets the ceiling pick its answer in O(1) (the other two ignore it).
 */
import { IDS } from './bundle.ts';

export const NS = 'http://scoop.example.org/api';
export const SCENARIO_HEADER = 'x-bench-scenario';

export const PUBLIC_PATH = '/scoop/api/v6/public.asmx';
export const V6_PATH = '/scoop/api/v6/scoop.asmx';
export const V7_PATH = '/scoop/api/v7/scoop.asmx';
export const JSON_PATH = '/api/v1';

export interface BenchRequest {
  readonly method: 'GET' | 'POST';
  /** Path and query. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface Target {
  /** Ours must reach at least this fraction of the ceiling's requests/s. */
  readonly minCeilingRatio: number;
  /** Our p99 must be at most this multiple of the ceiling's (absent: no latency target). */
  readonly maxP99Ratio?: number;
  /** Ours must reach at least this multiple of the peer's requests/s (absent: no peer, i.e. HTTP GET). */
  readonly minPeerRatio?: number;
  /** Ours must serve more requests/s than ours for this other scenario (the same content another way). */
  readonly fasterThan?: string;
}

export interface Scenario {
  /** Stable key, also for `--only`. */
  readonly name: string;
  readonly title: string;
  readonly operation: string;
  readonly binding: 'httpget' | 'soap11' | 'soap12' | 'json';
  /** The endpoint path (for the peer's SOAP listener). */
  readonly endpoint: string;
  readonly request: BenchRequest;
  /** `small` and `large` answers have different targets. */
  readonly size: 'small' | 'large';
  readonly target: Target;
}

const SMALL: Target = { minCeilingRatio: 0.8, maxP99Ratio: 2, minPeerRatio: 2.5 };
const LARGE: Target = { minCeilingRatio: 0.6, minPeerRatio: 3 };

function soap11(
  operation: string,
  inner: string,
  token?: string,
): { headers: Record<string, string>; body: string } {
  const header = token
    ? `<soap:Header><wsAuthHeader xmlns="${NS}"><token>${token}</token></wsAuthHeader></soap:Header>`
    : '';
  return {
    headers: { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: `"${NS}/${operation}"` },
    body:
      `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" ` +
      `xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">${header}` +
      `<soap:Body><${operation} xmlns="${NS}">${inner}</${operation}></soap:Body></soap:Envelope>`,
  };
}

function soap12(
  operation: string,
  inner: string,
  token?: string,
): { headers: Record<string, string>; body: string } {
  const header = token
    ? `<soap12:Header><wsAuthHeader xmlns="${NS}"><token>${token}</token></wsAuthHeader></soap12:Header>`
    : '';
  const body = inner
    ? `<${operation} xmlns="${NS}">${inner}</${operation}>`
    : `<${operation} xmlns="${NS}" />`;
  return {
    headers: { 'Content-Type': `application/soap+xml; charset=utf-8; action="${NS}/${operation}"` },
    body:
      `<?xml version="1.0" encoding="utf-8"?><soap12:Envelope xmlns:soap12="http://www.w3.org/2003/05/soap-envelope" ` +
      `xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">${header}` +
      `<soap12:Body>${body}</soap12:Body></soap12:Envelope>`,
  };
}

function post(
  path: string,
  name: string,
  message: { headers: Record<string, string>; body: string },
): BenchRequest {
  return {
    method: 'POST',
    path,
    headers: { ...message.headers, [SCENARIO_HEADER]: name },
    body: message.body,
  };
}

/** A JSON API GET (issue 16's Performance section); the peer has no JSON, the ceiling the same bytes. */
function jsonGet(
  name: string,
  title: string,
  operation: string,
  path: string,
  size: Scenario['size'],
  token?: string,
  fasterThan?: string,
): Scenario {
  return {
    name,
    title,
    operation,
    binding: 'json',
    endpoint: JSON_PATH,
    request: {
      method: 'GET',
      path: `${JSON_PATH}${path}`,
      headers: { [SCENARIO_HEADER]: name, ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    },
    size,
    target: {
      minCeilingRatio: size === 'small' ? SMALL.minCeilingRatio : LARGE.minCeilingRatio,
      ...(fasterThan ? { fasterThan } : {}),
    },
  };
}

export function scenarios(token: string): Scenario[] {
  return [
    {
      name: 'getBereich-get',
      title: 'getBereich, HTTP GET',
      operation: 'getBereich',
      binding: 'httpget',
      endpoint: PUBLIC_PATH,
      request: {
        method: 'GET',
        path: `${PUBLIC_PATH}/getBereich?bereichID=${IDS.bereich}`,
        headers: { [SCENARIO_HEADER]: 'getBereich-get' },
      },
      size: 'small',
      target: { minCeilingRatio: SMALL.minCeilingRatio, maxP99Ratio: 2 },
    },
    {
      name: 'getBereich-soap11',
      title: 'getBereich, SOAP 1.1',
      operation: 'getBereich',
      binding: 'soap11',
      endpoint: PUBLIC_PATH,
      request: post(
        PUBLIC_PATH,
        'getBereich-soap11',
        soap11('getBereich', `<bereichID>${IDS.bereich}</bereichID>`),
      ),
      size: 'small',
      target: SMALL,
    },
    {
      name: 'getArtikelDetails-soap11',
      title: 'getArtikelDetails (large article), SOAP 1.1 + token',
      operation: 'getArtikelDetails',
      binding: 'soap11',
      endpoint: V6_PATH,
      request: post(
        V6_PATH,
        'getArtikelDetails-soap11',
        soap11('getArtikelDetails', `<artikelID>${IDS.artikelLarge}</artikelID>`, token),
      ),
      size: 'large',
      target: LARGE,
    },
    {
      name: 'getAnhang-tiny-soap11',
      title: 'getAnhang, a few bytes, SOAP 1.1',
      operation: 'getAnhang',
      binding: 'soap11',
      endpoint: PUBLIC_PATH,
      request: post(
        PUBLIC_PATH,
        'getAnhang-tiny-soap11',
        soap11('getAnhang', `<anhangID>${IDS.anhangTiny}</anhangID>`),
      ),
      size: 'small',
      target: SMALL,
    },
    {
      name: 'getAnhang-1mb-soap11',
      title: 'getAnhang, 1 MB, SOAP 1.1',
      operation: 'getAnhang',
      binding: 'soap11',
      endpoint: PUBLIC_PATH,
      request: post(
        PUBLIC_PATH,
        'getAnhang-1mb-soap11',
        soap11('getAnhang', `<anhangID>${IDS.anhang1Mb}</anhangID>`),
      ),
      size: 'large',
      target: LARGE,
    },
    {
      name: 'getNewsletter-soap12',
      title: 'getNewsletter, SOAP 1.2 + token',
      operation: 'getNewsletter',
      binding: 'soap12',
      endpoint: V7_PATH,
      request: post(V7_PATH, 'getNewsletter-soap12', soap12('getNewsletter', '', token)),
      size: 'small',
      target: SMALL,
    },
    jsonGet('getBereich-json', 'getBereich, JSON', 'getBereich', `/bereiche/${IDS.bereich}`, 'small'),
    jsonGet(
      'getNewsletter-json',
      'getNewsletter, JSON + token',
      'getNewsletter',
      '/newsletter',
      'small',
      token,
    ),
    jsonGet(
      'getArtikelDetails-json',
      'getArtikelDetails (large article), JSON + token',
      'getArtikelDetails',
      `/artikel/${IDS.artikelLarge}`,
      'large',
      token,
    ),
    {
      name: 'getAnhang-1mb-get',
      title: 'getAnhang, 1 MB, HTTP GET (base64; compare getAnhangContent-1mb-json)',
      operation: 'getAnhang',
      binding: 'httpget',
      endpoint: PUBLIC_PATH,
      request: {
        method: 'GET',
        path: `${PUBLIC_PATH}/getAnhang?anhangID=${IDS.anhang1Mb}`,
        headers: { [SCENARIO_HEADER]: 'getAnhang-1mb-get' },
      },
      size: 'large',
      // Measured as what the JSON content route must beat (fasterThan); no target of its own.
      target: { minCeilingRatio: 0 },
    },
    jsonGet(
      'getAnhangContent-1mb-json',
      'getAnhangContent, 1 MB file, JSON API content route',
      'getAnhang',
      `/anhaenge/${IDS.anhang1Mb}/content`,
      'large',
      undefined,
      'getAnhang-1mb-get',
    ),
    {
      name: 'getBild-variant-get',
      title: 'getBild, a cached 320 px variant, HTTP GET (base64; compare getBildContent-variant-json)',
      operation: 'getBild',
      binding: 'httpget',
      endpoint: PUBLIC_PATH,
      request: {
        method: 'GET',
        path: `${PUBLIC_PATH}/getBild?bildID=${IDS.bild}&width=320&height=0`,
        headers: { [SCENARIO_HEADER]: 'getBild-variant-get' },
      },
      size: 'large',
      // Measured as what the JSON content route must beat (fasterThan); no target of its own.
      target: { minCeilingRatio: 0 },
    },
    jsonGet(
      'getBildContent-variant-json',
      'getBildContent, a cached 320 px variant, JSON API content route',
      'getBild',
      `/bilder/${IDS.bild}/content?width=320`,
      'large',
      undefined,
      'getBild-variant-get',
    ),
  ];
}

/** The 200 MB attachment, once: SOAP 1.1 (base64 streamed from the store's chunks). */
export function hugeRequest(): BenchRequest {
  return post(
    PUBLIC_PATH,
    'getAnhang-200mb-soap11',
    soap11('getAnhang', `<anhangID>${IDS.anhang200Mb}</anhangID>`),
  );
}

export const HUGE_TARGET = { maxRssGrowthMb: 100, minCeilingRatio: 0.6 } as const;
export const RSS_TARGET_MB = 150;
/** A second store (PostgreSQL) must reach this fraction of SQLite's requests/s once records are cached. */
export const STORE_TARGET_RATIO = 0.8;

/**
 * The load test's mix (issue 4 item 9): GET and SOAP, public and token-protected, all
 * small-to-medium answers. Every request must be answered 200.
 */
export function loadMix(token: string): BenchRequest[] {
  const bearer = { Authorization: `Bearer ${token}` };
  const strip = (r: BenchRequest): BenchRequest => {
    const { [SCENARIO_HEADER]: _name, ...headers } = r.headers;
    return { ...r, headers };
  };
  return [
    { method: 'GET', path: `${PUBLIC_PATH}/getBereich?bereichID=1`, headers: {} },
    { method: 'GET', path: `${PUBLIC_PATH}/getBereich?bereichID=7`, headers: {} },
    { method: 'GET', path: `${PUBLIC_PATH}/getAnhang?anhangID=${IDS.anhangTiny}`, headers: {} },
    { method: 'GET', path: `${V7_PATH}/getNewsletter`, headers: bearer },
    { method: 'GET', path: `${V7_PATH}/getCityAppBereich?cityAppBereichID=12`, headers: bearer },
    {
      method: 'POST',
      path: `${V6_PATH}/getAbonnierteNewsletter`,
      headers: { ...bearer, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'email=leser%40example.org',
    },
    strip(post(PUBLIC_PATH, '', soap11('getBereich', '<bereichID>3</bereichID>'))),
    strip(post(PUBLIC_PATH, '', soap11('getAnhang', `<anhangID>${IDS.anhangTiny}</anhangID>`))),
    strip(
      post('/scoop/api/v5/scoop.asmx', '', soap11('checkAnhangVorhanden', '<anhangID>2</anhangID>', token)),
    ),
    strip(post(V6_PATH, '', soap11('getArtikelDetails', '<artikelID>2</artikelID>', token))),
    strip(
      post(V6_PATH, '', soap11('getArtikelDetails', `<artikelID>${IDS.artikelLarge}</artikelID>`, token)),
    ),
    strip(post(V7_PATH, '', soap12('getNewsletter', '', token))),
    strip(post(V7_PATH, '', soap12('getCityAppBereich', '<cityAppBereichID>10</cityAppBereichID>', token))),
  ];
}
