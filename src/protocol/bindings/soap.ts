/**
 * What SOAP 1.1 and SOAP 1.2 share: requests are POSTed to an endpoint's path, the
 * envelope's namespace (not the Content-Type) decides the version it is answered in
 * (soap-request.ts), and refusals are SOAP faults — but for those made before there is a
 * SOAP request to answer (the media type, the request head), which are HTTP errors.
 */
import { type ErrorCode, ScoopError } from '../../contract/errors.ts';
import { type Binding, type BindingName, single } from '../binding.ts';
import { renderHttpError, renderSoapFault } from '../faults.ts';
import { queryNamesToken, refuseTokenInUrl } from '../http-request.ts';
import { SOAP_CONTENT_TYPE, type SoapVersion } from '../namespaces.ts';
import { decodeSoapRequest, isSoapMediaType, SOAP11_MEDIA_TYPE, SOAP12_MEDIA_TYPE } from '../soap-request.ts';

const HTTP_LEVEL: ReadonlySet<ErrorCode> = new Set([
  'UNSUPPORTED_MEDIA_TYPE',
  'HEADERS_TOO_LARGE',
  'BAD_REQUEST',
]);

const NAMES: Record<SoapVersion, BindingName> = { '1.1': 'soap11', '1.2': 'soap12' };

export function soapBinding(version: SoapVersion): Binding {
  return {
    name: NAMES[version],
    title: `SOAP ${version}`,
    requestMediaTypes: [version === '1.1' ? SOAP11_MEDIA_TYPE : SOAP12_MEDIA_TYPE],
    contentType: SOAP_CONTENT_TYPE[version],
    conditional: false,
    description: { style: 'soap', version, wsdlName: version === '1.1' ? 'Soap' : 'Soap12' },
    isPublic: () => false,
    // SOAP 1.2 is claimed by its media type; SOAP 1.1, as the original's default binding, takes
    // every other POST to an endpoint and refuses a media type that is not SOAP's when decoding.
    claims({ method, target, mediaType }) {
      if (method !== 'POST' || target.kind !== 'endpoint') return false;
      const isSoap12 = mediaType?.essence === SOAP12_MEDIA_TYPE;
      return version === '1.2' ? isSoap12 : !isSoap12;
    },
    readsBody: ({ mediaType }) => isSoapMediaType(mediaType),
    decode(request, settings) {
      // The query is not read, but a token there has already reached logs and proxies.
      if (queryNamesToken(request.query)) refuseTokenInUrl();
      const { mediaType } = request;
      if (request.target.kind !== 'endpoint' || !isSoapMediaType(mediaType) || request.body === undefined) {
        throw new ScoopError(
          'UNSUPPORTED_MEDIA_TYPE',
          `SOAP requests are sent as text/xml (SOAP 1.1) or application/soap+xml (SOAP 1.2), not ${mediaType?.essence ?? 'without a content type'}.`,
        );
      }
      const { endpoint } = request.target;
      const decoded = decodeSoapRequest({
        endpoint,
        namespace: settings.namespace,
        mediaType: mediaType!,
        soapAction: single(request.headers.soapaction),
        body: request.body,
        limits: settings.xmlLimits,
      });
      return {
        binding: NAMES[decoded.version],
        operation: decoded.operation,
        parameters: decoded.parameters,
        token: decoded.token,
        authenticate: endpoint.requiresToken,
      };
    },
    render: (writer, result) => ({ parts: writer.soap(version, result) }),
    prepared: { layout: 'compact', wrap: (writer, inner) => writer.wrapSoap(version, inner) },
    refusal: (error, namespace) =>
      HTTP_LEVEL.has(error.code)
        ? renderHttpError(error, namespace)
        : renderSoapFault(error, version, namespace),
  };
}
