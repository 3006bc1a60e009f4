/** SOAP 1.1 (W3C Note 2000-05-08) as the original speaks it: text/xml, SOAPAction header. */
import { soapBinding } from './soap.ts';

export const soap11 = soapBinding('1.1');
