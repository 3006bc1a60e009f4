/**
 * The JSON API's OpenAPI 3.1 document, generated at start-up from the contract and the
 * route table (protocol/json/routes.ts), as the WSDL is from the contract: a schema per
 * contract type (the JSON writers' shapes: every field present, `null` where the XML
 * omits a value, `contentUrl` for binary data), a parameter per route parameter with its
 * range and limits, the bearer scheme on the routes that need a token, and the problems
 * each route may answer with. `openapi.test.ts` checks it against the routes and lints it.
 */
import { ERRORS } from '../contract/errors.ts';
import type { Operation } from '../contract/operations.ts';
import type { ComplexType, Field, ValueType } from '../contract/schema.ts';
import { JSON_MEDIA_TYPE } from '../protocol/json/client-request.ts';
import { PROBLEM_MEDIA_TYPE, PROBLEM_TYPE_PREFIX } from '../protocol/json/problem.ts';
import { API_PREFIX, JSON_ROUTES, type JsonRoute, OPENAPI_PATH } from '../protocol/json/routes.ts';
import demoExamples from './openapi-examples.json' with { type: 'json' };

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** An operation called with the demo content: its parameters, and its JSON answer if it has one. */
export interface OperationExample {
  readonly parameters: Readonly<Record<string, Json>>;
  readonly response?: Json;
}

/** The examples, made from the demo content by test/openapi-examples.test.ts (`npm run api:examples`). */
export const EXAMPLES_FILE = 'src/describe/openapi-examples.json';
const EXAMPLES: Readonly<Record<string, OperationExample>> = demoExamples;
const DEMO = 'From the demo content (examples/demo-bundle)';

export interface OpenApiOptions {
  /** Largest `width`/`height` (SCOOP_MAX_IMAGE_DIMENSION). */
  readonly maxImageDimension: number;
  /** Most items of a list parameter (SCOOP_MAX_LIST_ITEMS). */
  readonly maxListItems: number;
  /** SCOOP_PUBLIC_URL: the server's URL; otherwise the document's own origin. */
  readonly publicUrl: string | undefined;
  /** `max-age` of public answers (SCOOP_HTTP_MAX_AGE), for the description. */
  readonly httpMaxAge: number;
}

export { OPENAPI_PATH };

const INT32: JsonObject = { type: 'integer', format: 'int32', minimum: -2147483648, maximum: 2147483647 };
const BEARER = 'bearerAuth';

const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });

function isBinary(type: ValueType): boolean {
  return type.kind === 'scalar' && type.name === 'base64Binary';
}

/** A value's schema; `nullable` when the JSON may hold null there (the XML omits or nils it). */
function valueSchema(type: ValueType, nullable: boolean): JsonObject {
  let schema: JsonObject;
  switch (type.kind) {
    case 'scalar':
      switch (type.name) {
        case 'int':
          schema = { type: 'integer', format: 'int32' };
          break;
        case 'boolean':
          schema = { type: 'boolean' };
          break;
        case 'guid':
          schema = { type: 'string', format: 'uuid' };
          break;
        default:
          schema = { type: 'string' };
      }
      break;
    case 'enum':
    case 'complex':
      return nullable ? { anyOf: [ref(type.name), { type: 'null' }] } : ref(type.name);
    case 'array':
      schema = { type: 'array', items: valueSchema(type.item, type.nillableItems) };
      break;
  }
  if (nullable && typeof schema.type === 'string') schema.type = [schema.type, 'null'];
  return schema;
}

/** Whether the JSON may hold null for a field: a reference type (string, record, list), or nillable. */
function fieldNullable(f: Field): boolean {
  return f.nillable || !f.required;
}

function complexSchema(type: ComplexType): JsonObject {
  const properties: JsonObject = {};
  const required: Json[] = [];
  for (const f of type.fields) {
    if (isBinary(f.type)) {
      properties.contentUrl = {
        type: 'string',
        format: 'uri-reference',
        description: 'The URL of the bytes (the content route), in place of the XML answer’s base64 `data`.',
      };
      required.push('contentUrl');
    } else {
      properties[f.name] = valueSchema(f.type, fieldNullable(f));
      required.push(f.name);
    }
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

/** Every named type reachable from the routes' results, in the order first met. */
function collectSchemas(into: Map<string, JsonObject>, type: ValueType): void {
  switch (type.kind) {
    case 'enum':
      if (!into.has(type.name)) into.set(type.name, { type: 'string', enum: [...type.values] });
      return;
    case 'complex':
      if (into.has(type.name)) return;
      into.set(type.name, complexSchema(type));
      for (const f of type.fields) collectSchemas(into, f.type);
      return;
    case 'array':
      collectSchemas(into, type.item);
      return;
    case 'scalar':
      return;
  }
}

function resultField(operation: Operation): Field {
  return operation.result.fields[0]!;
}

function parameterSchema(route: JsonRoute, f: Field, options: OpenApiOptions): JsonObject {
  const fallback = route.defaults[f.name];
  if (f.name === 'width' || f.name === 'height')
    return {
      type: 'integer',
      format: 'int32',
      minimum: 0,
      maximum: options.maxImageDimension,
      default: Number(fallback ?? 0),
    };
  if (f.type.kind === 'array' && f.type.item.kind === 'enum')
    return { type: 'array', items: ref(f.type.item.name), maxItems: options.maxListItems };
  if (f.type.kind === 'scalar' && f.type.name === 'int') return { ...INT32 };
  return { type: 'string', minLength: 1 };
}

function parameters(route: JsonRoute, options: OpenApiOptions): Json[] {
  const docs: Readonly<Record<string, string>> = route.operation.paramDocs;
  const demo = EXAMPLES[route.operationId]?.parameters ?? {};
  const path = route.pathParams.map((f) => ({
    name: f.name,
    in: 'path',
    required: true,
    description: docs[f.name] ?? '',
    schema: parameterSchema(route, f, options),
    ...(demo[f.name] === undefined ? {} : { example: demo[f.name]! }),
  }));
  const query = route.queryParams.map((f) => ({
    name: f.name,
    in: 'query',
    required: false,
    description: docs[f.name] ?? '',
    schema: parameterSchema(route, f, options),
    ...(f.type.kind === 'array' ? { style: 'form', explode: true } : {}),
  }));
  return [...path, ...query];
}

const problem = (description: string): JsonObject => ({
  description,
  content: { [PROBLEM_MEDIA_TYPE]: { schema: ref('Problem') } },
});

/** The refusals a route may answer with, by status (docs/errors.md has each code). */
function problemResponses(route: JsonRoute): JsonObject {
  const out: JsonObject = {
    '400': problem('A parameter is missing, not valid for its type, out of range or given twice.'),
    '404': problem('No published record has this id (UNKNOWN_ID), or no route has this path (NOT_FOUND).'),
  };
  if (route.token) out['401'] = problem('The token is missing, malformed, unknown or revoked (AUTH_FAILED).');
  if (route.method === 'POST') {
    out['413'] = problem('The body exceeds SCOOP_MAX_BODY_BYTES (BODY_TOO_LARGE).');
    out['415'] = problem('The body is not sent as application/json (UNSUPPORTED_MEDIA_TYPE).');
  }
  if (route.operation.name === 'getBild')
    out['422'] = problem(
      'The stored image cannot be resized (IMAGE_TOO_LARGE, IMAGE_NOT_RESIZABLE, IMAGE_TOO_COMPLEX).',
    );
  if (route.answer === 'content')
    out['416'] = problem('The Range lies outside the file (RANGE_NOT_SATISFIABLE).');
  out['429'] = problem('Too many requests from this client (RATE_LIMITED); see Retry-After.');
  out['503'] = problem(
    'The store is unreachable or the resize queue is full (UNAVAILABLE, BUSY); see Retry-After.',
  );
  out.default = problem('Any other refusal of the catalogue.');
  return out;
}

const ETAG = {
  description: 'A strong entity tag; send it as If-None-Match to get 304.',
  schema: { type: 'string' },
};

function successResponses(route: JsonRoute): JsonObject {
  const member = resultField(route.operation);
  switch (route.answer) {
    case 'exists':
      return { '200': { description: 'The attachment exists (no body).' } };
    case 'json': {
      const demo = EXAMPLES[route.operationId]?.response;
      const media: JsonObject = { schema: valueSchema(member.type, false) };
      if (demo !== undefined) media.examples = { demo: { summary: DEMO, value: demo } };
      return {
        '200': {
          description: `The ${member.name} (${route.operation.purpose.toLowerCase()}).`,
          headers: { ETag: ETAG },
          content: { [JSON_MEDIA_TYPE]: media },
        },
        ...(route.method === 'GET'
          ? { '304': { description: 'Not modified: the If-None-Match tag is current.' } }
          : {}),
      };
    }
    case 'content':
      return {
        '200': {
          description: 'The bytes, typed by the record’s mimetype and named by its filename.',
          headers: {
            ETag: ETAG,
            'Content-Disposition': {
              description: 'inline, with the filename (RFC 6266, RFC 8187).',
              schema: { type: 'string' },
            },
            'Accept-Ranges': { schema: { type: 'string', const: 'bytes' } },
          },
          content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
        },
        '206': {
          description: 'The one byte range asked for.',
          headers: { 'Content-Range': { schema: { type: 'string' } } },
          content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
        },
        '304': { description: 'Not modified: the If-None-Match tag is current.' },
      };
  }
}

function headerParameters(route: JsonRoute): Json[] {
  if (route.method !== 'GET') return [];
  const out: Json[] = [
    {
      name: 'If-None-Match',
      in: 'header',
      required: false,
      schema: { type: 'string' },
      description: 'An ETag of an earlier answer: 304 while it is current.',
    },
  ];
  if (route.answer === 'content') {
    out.push(
      {
        name: 'Range',
        in: 'header',
        required: false,
        schema: { type: 'string' },
        description: 'One byte range, e.g. bytes=0-1023.',
      },
      {
        name: 'If-Range',
        in: 'header',
        required: false,
        schema: { type: 'string' },
        description: 'The ETag the Range is for; another tag gets the whole file.',
      },
    );
  }
  return out;
}

function requestBody(route: JsonRoute): JsonObject | undefined {
  if (route.bodyParams.length === 0) return undefined;
  const properties: JsonObject = {};
  const docs: Readonly<Record<string, string>> = route.operation.paramDocs;
  for (const f of route.bodyParams)
    properties[f.name] = { type: 'string', minLength: 1, description: docs[f.name] ?? '' };
  const example: JsonObject = Object.fromEntries(
    route.bodyParams.map((f) => [f.name, f.name === 'email' ? 'erika.beispiel@example.org' : 'text']),
  );
  return {
    required: true,
    content: {
      [JSON_MEDIA_TYPE]: {
        schema: {
          type: 'object',
          properties,
          required: route.bodyParams.map((f) => f.name),
          additionalProperties: false,
        },
        example,
      },
    },
  };
}

function operationObject(route: JsonRoute, options: OpenApiOptions): JsonObject {
  const body = requestBody(route);
  const content = route.answer === 'content' ? ' — its bytes' : '';
  return {
    operationId: route.operationId,
    summary: `${route.operation.purpose}${content}`,
    tags: [route.token ? 'token' : 'public'],
    parameters: [...parameters(route, options), ...headerParameters(route)],
    ...(body ? { requestBody: body } : {}),
    security: route.token ? [{ [BEARER]: [] }] : [],
    responses: { ...successResponses(route), ...problemResponses(route) },
  };
}

export function generateOpenApi(options: OpenApiOptions): JsonObject {
  const schemas = new Map<string, JsonObject>();
  for (const route of JSON_ROUTES) {
    collectSchemas(schemas, resultField(route.operation).type);
    for (const f of route.operation.params) collectSchemas(schemas, f.type);
  }
  schemas.set('Problem', {
    type: 'object',
    description: 'An RFC 9457 problem: every refusal of the JSON API.',
    properties: {
      type: { type: 'string', format: 'uri', description: `${PROBLEM_TYPE_PREFIX}<code>` },
      title: { type: 'string', description: 'The summary of the code (the same for every occurrence).' },
      status: { type: 'integer', description: 'The HTTP status.' },
      detail: { type: 'string', description: 'What was wrong with this request.' },
      code: { type: 'string', enum: Object.keys(ERRORS), description: 'The catalogue code clients key on.' },
    },
    required: ['type', 'title', 'status', 'detail', 'code'],
  });
  const paths: JsonObject = {};
  for (const route of JSON_ROUTES) {
    const template = API_PREFIX + route.path;
    const item = (paths[template] ?? {}) as JsonObject;
    item[route.method.toLowerCase()] = operationObject(route, options);
    paths[template] = item;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'scoop JSON API',
      version: '1',
      description:
        'Published CMS content as JSON, from the same contract as the SOAP service. Fields keep the contract’s names and types; ' +
        'a value the XML answer omits is null; binary data is a contentUrl. Errors are RFC 9457 problems. ' +
        `Answers of public routes may be cached (max-age ${options.httpMaxAge}); every GET has an ETag.`,
      // The project is private (package.json); the document says so rather than name none.
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: options.publicUrl ?? '/' }],
    tags: [
      { name: 'public', description: 'No token needed.' },
      { name: 'token', description: 'Authorization: Bearer <token> (scoop token create).' },
    ],
    paths,
    components: {
      schemas: Object.fromEntries(schemas),
      securitySchemes: {
        [BEARER]: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'GUID',
          description: 'A token from `scoop token create`.',
        },
      },
    },
  };
}
