/** Protocol namespace URIs, each named once. */
export const SOAP11_ENVELOPE_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
export const SOAP12_ENVELOPE_NS = 'http://www.w3.org/2003/05/soap-envelope';
export const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';
export const XSD_NS = 'http://www.w3.org/2001/XMLSchema';
/** SOAP 1.1 §4.2.2: the actor meaning "the first SOAP application that processes the message". */
export const SOAP11_ACTOR_NEXT = 'http://schemas.xmlsoap.org/soap/actor/next';
/** SOAP 1.2 part 1 §2.2: the roles every node plays, and the one no node plays. */
export const SOAP12_ROLE_NEXT = 'http://www.w3.org/2003/05/soap-envelope/role/next';
export const SOAP12_ROLE_ULTIMATE_RECEIVER = 'http://www.w3.org/2003/05/soap-envelope/role/ultimateReceiver';
export const SOAP12_ROLE_NONE = 'http://www.w3.org/2003/05/soap-envelope/role/none';

export const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';

export type SoapVersion = '1.1' | '1.2';

export const SOAP_CONTENT_TYPE: Record<SoapVersion, string> = {
  '1.1': 'text/xml; charset=utf-8',
  '1.2': 'application/soap+xml; charset=utf-8',
};

export const SOAP_ENVELOPE_NS: Record<SoapVersion, string> = {
  '1.1': SOAP11_ENVELOPE_NS,
  '1.2': SOAP12_ENVELOPE_NS,
};

/** The envelope start exactly as the original writes it: prefix `soap`, then xsi, xsd. */
export function envelopeStart(version: SoapVersion): string {
  return `${XML_DECLARATION}<soap:Envelope xmlns:soap="${SOAP_ENVELOPE_NS[version]}" xmlns:xsi="${XSI_NS}" xmlns:xsd="${XSD_NS}">`;
}

export const ENVELOPE_END = '</soap:Envelope>';
