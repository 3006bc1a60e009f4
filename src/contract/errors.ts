/**
 * The one error catalogue. Every refusal the service makes is one of these codes;
 * each binding renders it (SOAP 1.1 fault, SOAP 1.2 fault, or an HTTP status with a
 * small XML body). docs/errors.md lists the same table; a test keeps them in step.
 */

/** Which side is at fault: `client` → soap:Client / soap:Sender, `server` → soap:Server / soap:Receiver. */
export type FaultSide = 'client' | 'server';

export interface ErrorSpec {
  readonly status: number;
  readonly side: FaultSide;
  readonly summary: string;
}

export const ERRORS = {
  UNKNOWN_ID: { status: 404, side: 'client', summary: 'No published record has this id.' },
  MISSING_PARAMETER: { status: 400, side: 'client', summary: 'A required parameter is missing or empty.' },
  INVALID_PARAMETER: {
    status: 400,
    side: 'client',
    summary: 'A parameter value is not valid for its type (xs:int, resizeMode, …) or out of range.',
  },
  DUPLICATE_PARAMETER: {
    status: 400,
    side: 'client',
    summary: 'A single-valued parameter was given more than once.',
  },
  TOO_MANY_VALUES: { status: 400, side: 'client', summary: 'A list parameter has more items than allowed.' },
  IMAGE_TOO_LARGE: {
    status: 422,
    side: 'client',
    summary:
      'The stored image has more pixels than SCOOP_MAX_IMAGE_PIXELS, so it is not resized (0×0 returns it).',
  },
  IMAGE_NOT_RESIZABLE: {
    status: 422,
    side: 'client',
    summary: 'The stored image is not in a format getBild resizes, or cannot be decoded (0×0 returns it).',
  },
  IMAGE_TOO_COMPLEX: {
    status: 422,
    side: 'client',
    summary:
      'Resizing the stored image took longer than SCOOP_RESIZE_TIMEOUT_SECONDS, so it is not resized (0×0 returns it).',
  },
  CLIENT_CLOSED: {
    status: 499,
    side: 'client',
    summary:
      'The client closed the connection before its answer was written; never sent, only logged and counted.',
  },
  BUSY: {
    status: 503,
    side: 'server',
    summary:
      'Every resize slot and queue place, or the budget of request bodies in flight, is taken; retry after the Retry-After seconds.',
  },
  AUTH_FAILED: {
    status: 401,
    side: 'client',
    summary: 'The token is missing, malformed, unknown or revoked (deliberately not told apart).',
  },
  TOKEN_IN_URL: { status: 400, side: 'client', summary: 'A token was sent in the URL query string.' },
  PARAMETER_IN_URL: {
    status: 400,
    side: 'client',
    summary: 'An HTTP POST carries an operation parameter in its URL query string, not its form body.',
  },
  DUPLICATE_HEADER: {
    status: 400,
    side: 'client',
    summary: 'A SOAP header or HTTP header that must appear once appeared more than once.',
  },
  MUST_UNDERSTAND: {
    status: 500,
    side: 'client',
    summary: 'A SOAP header marked mustUnderstand is not understood (soap:MustUnderstand).',
  },
  MALFORMED_XML: { status: 400, side: 'client', summary: 'The request body is not well-formed XML.' },
  DTD_NOT_ALLOWED: {
    status: 400,
    side: 'client',
    summary: 'The request contains a document type declaration.',
  },
  PROCESSING_INSTRUCTION: {
    status: 400,
    side: 'client',
    summary: 'The SOAP envelope contains a processing instruction.',
  },
  INVALID_ENCODING: {
    status: 400,
    side: 'client',
    summary: 'The request is not valid UTF-8, uses an unsupported charset, or has invalid percent-encoding.',
  },
  XML_LIMIT_EXCEEDED: {
    status: 400,
    side: 'client',
    summary: 'The XML exceeds a structural limit (depth, element or attribute count, name or text length).',
  },
  EMPTY_BODY: { status: 400, side: 'client', summary: 'The request body is empty.' },
  MALFORMED_JSON: {
    status: 400,
    side: 'client',
    summary: 'The JSON API request body is not one well-formed JSON object.',
  },
  UNKNOWN_FIELD: {
    status: 400,
    side: 'client',
    summary: 'The JSON API request body has a field the operation does not take.',
  },
  NOT_SOAP: {
    status: 500,
    side: 'client',
    summary: 'The body is XML but not a SOAP 1.1 or 1.2 envelope (soap:VersionMismatch).',
  },
  SOAP_VERSION_MISMATCH: {
    status: 500,
    side: 'client',
    summary: 'A SOAP 1.1 envelope was sent as application/soap+xml (soap:VersionMismatch).',
  },
  INVALID_ENVELOPE: {
    status: 400,
    side: 'client',
    summary:
      'The SOAP envelope is not shaped as SOAP requires (Body missing or repeated, header after body, …).',
  },
  UNKNOWN_OPERATION: {
    status: 404,
    side: 'client',
    summary: 'The operation does not exist at this endpoint (name, path or version).',
  },
  SOAP_ACTION_MISMATCH: {
    status: 400,
    side: 'client',
    summary: 'The SOAPAction header or action parameter names another operation than the body element.',
  },
  NOT_FOUND: { status: 404, side: 'client', summary: 'No such path.' },
  METHOD_NOT_ALLOWED: {
    status: 405,
    side: 'client',
    summary: 'The HTTP method is not allowed for this path.',
  },
  RANGE_NOT_SATISFIABLE: {
    status: 416,
    side: 'client',
    summary: 'The Range of a content request lies outside the file (JSON API content routes).',
  },
  BODY_TOO_LARGE: { status: 413, side: 'client', summary: 'The request body exceeds the configured limit.' },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    side: 'client',
    summary: 'The Content-Type is not the one this binding accepts, or the body has a content coding.',
  },
  BAD_REQUEST: { status: 400, side: 'client', summary: 'The HTTP request itself is malformed.' },
  REQUEST_TIMEOUT: {
    status: 408,
    side: 'client',
    summary:
      'The request head or the whole request was not received in time (slow client); connection closed.',
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    side: 'client',
    summary: 'The request head has too many header fields or is too large.',
  },
  INTERNAL: {
    status: 500,
    side: 'server',
    summary: 'An unexpected error on the server; the log has details.',
  },
  UNAVAILABLE: {
    status: 503,
    side: 'server',
    summary: 'The content store cannot be reached; retry after the Retry-After seconds.',
  },
  RATE_LIMITED: {
    status: 429,
    side: 'server',
    summary: 'This client sent more requests than the configured rate allows; retry after Retry-After.',
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;

/** The error every layer throws; rendered by the binding that received the request. */
export class ScoopError extends Error {
  readonly code: ErrorCode;
  /** Extra SOAP data, e.g. the header QNames for a soap:MustUnderstand fault. */
  readonly notUnderstood: readonly { uri: string; local: string; prefix: string }[];

  /** Seconds after which a refusal for load or limits may be retried (Retry-After). */
  readonly retryAfterSeconds: number | undefined;

  /**
   * Header fields the refusal carries besides those every refusal has: the methods a path
   * allows (`Allow`, RFC 9110 §15.5.6), the size of a range's representation
   * (`Content-Range` with `*` for the range, §15.5.17).
   */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    message: string,
    extra: {
      notUnderstood?: ScoopError['notUnderstood'];
      retryAfterSeconds?: number;
      headers?: Readonly<Record<string, string>>;
    } = {},
  ) {
    super(message);
    this.name = 'ScoopError';
    this.code = code;
    this.notUnderstood = extra.notUnderstood ?? [];
    this.retryAfterSeconds = extra.retryAfterSeconds;
    this.headers = extra.headers ?? {};
  }

  get spec(): ErrorSpec {
    return ERRORS[this.code];
  }
}

export function isScoopError(error: unknown): error is ScoopError {
  return error instanceof ScoopError;
}
