/**
 * What HTTP GET and HTTP POST share (service-spec.md 4.2): requests go to
 * `<endpoint>/<operation>`, parameters are name=value pairs (the query string for GET,
 * the form body for POST), the token is a Bearer header (or, for POST, a form field), and
 * refusals are HTTP statuses with a small XML body.
 */
import { ScoopError } from '../../contract/errors.ts';
import { findOperation } from '../../contract/operations.ts';
import type { Binding, BindingName, Call, DecodeSettings, WireRequest } from '../binding.ts';
import { single } from '../binding.ts';
import { renderHttpError } from '../faults.ts';
import {
  bearerToken,
  type FormPair,
  formParameters,
  hasTokenField,
  parseForm,
  refuseTokenInUrl,
} from '../http-request.ts';

export const HTTP_CONTENT_TYPE = 'text/xml; charset=utf-8';

export const refuseAsHttp: Binding['refusal'] = renderHttpError;

/**
 * Decodes a call for the binding `name`. `form` reads a POST's form body (GET has none);
 * the token may come from the Authorization header or from the form, but not from both.
 */
export function decodeHttpCall(
  request: WireRequest,
  settings: DecodeSettings,
  name: BindingName,
  form?: (
    operation: Call['operation'],
    queryPairs: readonly FormPair[],
  ) => {
    pairs: readonly FormPair[];
    token: string | undefined;
  },
): Call {
  if (request.target.kind !== 'operation')
    throw new Error('an HTTP binding was given a request it does not claim');
  const { endpoint, operationName } = request.target;
  const operation = findOperation(endpoint, operationName);
  if (!operation) {
    throw new ScoopError(
      'UNKNOWN_OPERATION',
      `The operation ${operationName.slice(0, 100)} is not offered at ${endpoint.path}.`,
    );
  }
  const queryPairs = parseForm(request.query);
  if (hasTokenField(queryPairs)) refuseTokenInUrl();
  const { pairs, token: fromForm } = form
    ? form(operation, queryPairs)
    : { pairs: queryPairs, token: undefined };
  const fromHeader = bearerToken(single(request.headers.authorization));
  if (fromHeader !== undefined && fromForm !== undefined) {
    throw new ScoopError(
      'DUPLICATE_PARAMETER',
      'The token was sent both in the Authorization header and in the form.',
    );
  }
  return {
    binding: name,
    operation,
    parameters: formParameters(operation, pairs),
    token: fromHeader ?? fromForm,
    authenticate: endpoint.requiresToken && settings.httpAuth,
  };
}
