/** SOAP 1.2 (W3C Recommendation 2007): application/soap+xml, the action as a media type parameter. */
import { soapBinding } from './soap.ts';

export const soap12 = soapBinding('1.2');
