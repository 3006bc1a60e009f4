/**
 * The operations and the endpoints that offer them (service-spec.md 4.1, 4.3).
 * Each operation is offered at exactly one endpoint; its result is a wrapper type
 * `wsGet<Op>Response` with a single member, which is also the HTTP GET/POST root.
 * Each operation's name, parameters and result keep their literal types, so its
 * arguments and result are inferred (ArgumentsOf, ResultOf) as its records are.
 */
import type { FieldValueOf, ValueOf } from './infer.ts';
import { BOOLEAN, type ComplexType, complex, type Field, field, INT, STRING } from './schema.ts';
import {
  ArrayOfInt,
  ArrayOfResizeMode,
  ArrayOfWsNewsletter,
  wsAnhang,
  wsArtikelDetails,
  wsBereich,
  wsBild,
  wsCityAppBereich,
} from './types.ts';

export type EndpointGroup = 'scoop' | 'public';

export interface Endpoint {
  readonly group: EndpointGroup;
  readonly version: number;
  /** Path after the base URL, e.g. `/scoop/api/v6/public.asmx`. */
  readonly path: string;
  /** `[WebService(Name)]` of the original: names the WSDL service, bindings and portTypes. */
  readonly serviceName: string;
  /** `scoop.asmx` operations carry the `wsAuthHeader` (service-spec.md part 5). */
  readonly requiresToken: boolean;
}

export interface Operation<
  N extends string = string,
  P extends readonly Field[] = readonly Field[],
  R extends ComplexType = ComplexType,
> {
  readonly name: N;
  readonly endpoint: Endpoint;
  readonly params: P;
  /** `wsGet<Op>Response`: the content of `<Op>Result` and the HTTP root element. */
  readonly result: R;
  readonly purpose: string;
  /** What each parameter means and its range, for the help pages (never in the WSDL). */
  readonly paramDocs: Readonly<Record<P[number]['name'], string>>;
}

function endpoint(group: EndpointGroup, version: number): Endpoint {
  return {
    group,
    version,
    path: `/scoop/api/v${version}/${group}.asmx`,
    serviceName: group,
    requiresToken: group === 'scoop',
  };
}

export const SCOOP_V5 = endpoint('scoop', 5);
export const SCOOP_V6 = endpoint('scoop', 6);
export const SCOOP_V7 = endpoint('scoop', 7);
export const PUBLIC_V6 = endpoint('public', 6);

/** In the order of the reference's WSDL and help pages for each endpoint. */
export const ENDPOINTS: readonly Endpoint[] = [SCOOP_V5, SCOOP_V6, SCOOP_V7, PUBLIC_V6];

/** Spec 4.2 rule 2: `getBereich` → `wsGetBereichResponse`, `checkAnhangVorhanden` → `wsCheckAnhangVorhandenResponse`. */
export function resultTypeName(operationName: string): string {
  const isGet = operationName.startsWith('get');
  const stem = isGet ? operationName.slice(3) : operationName;
  const capitalised = `${stem[0]!.toUpperCase()}${stem.slice(1)}`;
  return isGet ? `wsGet${capitalised}Response` : `ws${capitalised}Response`;
}

function operation<const N extends string, const P extends readonly Field[], R extends Field>(
  name: N,
  at: Endpoint,
  params: P,
  resultField: R,
  purpose: string,
  paramDocs: Readonly<Record<P[number]['name'], string>>,
): Operation<N, P, ComplexType<readonly [R]>> {
  return {
    name,
    endpoint: at,
    params,
    result: complex(resultTypeName(name), [resultField]),
    purpose,
    paramDocs,
  };
}

const INT_RANGE = 'an xs:int (-2147483648 to 2147483647)';
/** The default of SCOOP_MAX_IMAGE_DIMENSION, which an operator may change. */
const SIDE_RANGE = '0 to SCOOP_MAX_IMAGE_DIMENSION (4096 unless the operator changed it)';

/** Each operation with its literal types, which ArgumentsOf and ResultOf read. */
const DEFINED = [
  operation(
    'checkAnhangVorhanden',
    SCOOP_V5,
    [field('anhangID', INT)],
    field('anhangVorhanden', BOOLEAN),
    'Checks whether an attachment exists',
    { anhangID: `The attachment's id, ${INT_RANGE}.` },
  ),
  operation(
    'getArtikelDetails',
    SCOOP_V6,
    [field('artikelID', INT)],
    field('artikelDetails', wsArtikelDetails),
    'Returns one article with all details',
    { artikelID: `The article's id, ${INT_RANGE}.` },
  ),
  operation(
    'getAbonnierteNewsletter',
    SCOOP_V6,
    [field('email', STRING)],
    field('newsletter', ArrayOfInt),
    'Returns the newsletters a user has subscribed to',
    { email: "The subscriber's e-mail address; must not be empty." },
  ),
  operation(
    'getNewsletter',
    SCOOP_V7,
    [],
    field('newsletter', ArrayOfWsNewsletter),
    'Returns the publicly subscribable newsletters',
    {},
  ),
  operation(
    'getCityAppBereich',
    SCOOP_V7,
    [field('cityAppBereichID', INT)],
    field('cityAppBereich', wsCityAppBereich),
    'Returns one city-app area',
    { cityAppBereichID: `The city-app area's id, ${INT_RANGE}.` },
  ),
  operation(
    'getBild',
    PUBLIC_V6,
    [
      field('bildID', INT),
      field('width', INT),
      field('height', INT),
      field('resizeModes', ArrayOfResizeMode),
    ],
    field('bild', wsBild),
    'Returns one image',
    {
      bildID: `The image's id, ${INT_RANGE}.`,
      width: `Width in pixels, ${SIDE_RANGE}; 0 derives it from height keeping the aspect ratio, and 0 for both returns the image as stored.`,
      height: `Height in pixels, ${SIDE_RANGE}; 0 derives it from width keeping the aspect ratio, and 0 for both returns the image as stored.`,
      resizeModes:
        'How the image fills the box: standard (fits inside, never enlarged), fit (fits inside), crop (fills the box, the overflow cut off), stretch (fills the box, aspect ratio ignored), background (fits inside, padded to the box). An empty or missing list means standard.',
    },
  ),
  operation(
    'getAnhang',
    PUBLIC_V6,
    [field('anhangID', INT)],
    field('anhang', wsAnhang),
    'Returns one attachment',
    { anhangID: `The attachment's id, ${INT_RANGE}.` },
  ),
  operation(
    'getBereich',
    PUBLIC_V6,
    [field('bereichID', INT)],
    field('bereich', wsBereich),
    'Returns one area',
    { bereichID: `The area's id, ${INT_RANGE}.` },
  ),
] as const satisfies readonly Operation[];

export const OPERATIONS: readonly Operation[] = DEFINED;

type AnyOperation = (typeof DEFINED)[number];

export type OperationName = AnyOperation['name'];

/** The operation of this name, with the literal types of its parameters and result. */
export type OperationNamed<N extends OperationName> = Extract<AnyOperation, { readonly name: N }>;

/**
 * The coerced arguments of an operation, e.g. `{ bildID: number; …; resizeModes: ResizeMode[] }`.
 * Never null: coercion refuses a missing int or a missing or empty string (MISSING_PARAMETER)
 * and makes an absent list empty.
 */
export type ArgumentsOf<N extends OperationName> = {
  [P in OperationNamed<N>['params'][number] as P['name']]: NonNullable<FieldValueOf<P>>;
};

/** What an operation's handler returns: its result wrapper's one member, e.g. `{ bild: Bild }`. */
export type ResultOf<N extends OperationName> = ValueOf<OperationNamed<N>['result']>;

/** A coerced argument of some operation, before the call is typed by its operation. */
export type ArgumentValue = { [N in OperationName]: ValuesOf<ArgumentsOf<N>> }[OperationName];

type ValuesOf<T> = T[keyof T];

/** Coerced arguments of some operation, keyed by parameter name (what coercion produces). */
export type Arguments = Readonly<Record<string, ArgumentValue>>;

/** A result of some operation, keyed by field name (what the compiled writers read). */
export type Result = Readonly<Record<string, unknown>>;

export function operationsAt(at: Endpoint): Operation[] {
  return OPERATIONS.filter((op) => op.endpoint === at);
}

export function findEndpoint(path: string): Endpoint | undefined {
  return ENDPOINTS.find((e) => e.path === path);
}

export function findOperation(at: Endpoint, name: string): Operation | undefined {
  return OPERATIONS.find((op) => op.endpoint === at && op.name === name);
}
