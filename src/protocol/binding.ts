/**
 * A binding is one way of calling an operation over HTTP (service-spec.md 4.2): it says
 * which requests it takes, decodes one into a call (operation, raw arguments, token),
 * and renders a result or a refusal. The four of the original are registered in
 * `bindings/registry.ts`; the server and the describe layer know them only through it.
 */
import type { ScoopError } from '../contract/errors.ts';
import type { Arguments, Endpoint, Operation } from '../contract/operations.ts';
import type { XmlLimits } from '../xml/reader.ts';
import type { BodyPart, Layout } from '../xml/writer.ts';
import type { RawParameters } from './coerce.ts';
import type { MediaType } from './content-type.ts';
import type { RenderedError } from './faults.ts';
import type { SoapVersion } from './namespaces.ts';
import type { OperationWriter } from './serialize.ts';

export type BindingName = 'soap11' | 'soap12' | 'httpget' | 'httppost' | 'json';

/** Where a request's path points: an endpoint (SOAP), an endpoint's operation (HTTP), or nothing. */
export type Target =
  | { readonly kind: 'endpoint'; readonly endpoint: Endpoint }
  | { readonly kind: 'operation'; readonly endpoint: Endpoint; readonly operationName: string }
  | { readonly kind: 'none' };

export type HeaderValues = Readonly<Record<string, string | string[] | undefined>>;

/** What a binding sees of a request: already routed, and with its body when the binding asked for it. */
export interface WireRequest {
  readonly method: string;
  /** The request target's path (what `target` was routed from), for a binding with paths of its own. */
  readonly path: string;
  readonly target: Target;
  readonly query: string;
  readonly headers: HeaderValues;
  /**
   * A POST's Content-Type, parsed; undefined when there is none, or when it was sent twice
   * (ambiguous: refused by the head checks, and claimed meanwhile as if absent).
   */
  readonly mediaType: MediaType | undefined;
  /** Read before decoding when `readsBody` said so; otherwise undefined. */
  readonly body: Buffer | undefined;
}

/** A decoded request: plain data, kept with a cached answer for the log and the token check. */
export interface Call {
  /** The binding that answers (a SOAP 1.2 envelope sent as text/xml is answered as SOAP 1.2). */
  readonly binding: BindingName;
  readonly operation: Operation;
  readonly parameters: RawParameters;
  readonly token: string | undefined;
  /** Whether a token is demanded on this binding. */
  readonly authenticate: boolean;
  /** On the JSON API, the route called (its operationId): one operation answers as a record or as its bytes. */
  readonly route?: string;
}

export interface DecodeSettings {
  readonly namespace: string;
  readonly xmlLimits: XmlLimits;
  /** Whether HTTP GET/POST calls of `scoop.asmx` operations need a token. */
  readonly httpAuth: boolean;
}

/** How the WSDL and the help pages' samples show a binding of the original's wire. */
export type WsdlDescription =
  | { readonly style: 'soap'; readonly version: SoapVersion; readonly wsdlName: 'Soap' | 'Soap12' }
  | { readonly style: 'http'; readonly verb: 'GET' | 'POST'; readonly wsdlName: 'HttpGet' | 'HttpPost' };

/**
 * How the describe layer shows a binding: the original's four in the WSDL and the help
 * pages' samples; the JSON API in its own OpenAPI document (docs/json-api.md), not there.
 */
export type BindingDescription = WsdlDescription | { readonly style: 'json' };

/** The bindings' descriptions the WSDL and the help samples show, in the registry's order. */
export function wsdlDescriptions(bindings: readonly Binding[]): WsdlDescription[] {
  return bindings.flatMap(({ description: d }) => (d.style === 'json' ? [] : [d]));
}

export interface Binding {
  readonly name: BindingName;
  /** The section title in help pages and docs: `SOAP 1.1`, `HTTP GET`, … */
  readonly title: string;
  /** Media types of the requests it decodes (none for HTTP GET). */
  readonly requestMediaTypes: readonly string[];
  /** The Content-Type of its answers. */
  readonly contentType: string;
  /**
   * Answers to GET: they carry an ETag and honour If-None-Match (RFC 9110 §13.1.2), and
   * those of public operations may be cached by proxies.
   */
  readonly conditional: boolean;
  readonly description: BindingDescription;
  /**
   * Whether a successful answer to this call may be kept by proxies and CDNs
   * (`Cache-Control: public`): GET answers of operations that need no token.
   */
  isPublic(call: Call): boolean;
  /**
   * Whether this binding takes the request, by its path or target, method and Content-Type.
   * Never throws. The first registered binding that claims a request takes it, so the
   * registered bindings' claims must not overlap (bindings/registry.test.ts checks them).
   */
  claims(request: Pick<WireRequest, 'method' | 'path' | 'target' | 'mediaType'>): boolean;
  /** Whether the body is read before decoding (so the answer cache can key on it). */
  readsBody(request: Pick<WireRequest, 'method' | 'path' | 'mediaType'>): boolean;
  /** The call, or a catalogue refusal (thrown). */
  decode(request: WireRequest, settings: DecodeSettings): Call;
  /** The result as this binding sends it; `args` are the call's coerced arguments. A refusal is thrown. */
  render(
    writer: OperationWriter,
    result: Readonly<Record<string, unknown>>,
    call: Call,
    args: Arguments,
  ): RenderedAnswer;
  /**
   * How the binding sends an answer an import prepared (src/prepare/): its layout, and the
   * envelope around it. Absent: every answer is rendered from the result (the JSON API).
   */
  readonly prepared?: {
    readonly layout: Layout;
    wrap(writer: OperationWriter, inner: readonly BodyPart[]): BodyPart[];
  };
  /** A refusal as this binding's clients expect it (a SOAP fault, or an HTTP status with a small XML body). */
  refusal(error: ScoopError, namespace: string): RenderedError;
}

/** A successful answer's body, and header fields of its own (a content route's type and name). */
export interface RenderedAnswer {
  readonly parts: BodyPart[];
  /**
   * Replace or add to the binding's usual head; `accept-ranges: bytes` says the body (one
   * binary) may be asked for in byte ranges (RFC 9110 §14).
   */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A header sent once; a repeated one (refused earlier, request-headers.ts) joined. */
export function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
