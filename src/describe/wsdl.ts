/**
 * The WSDL 1.1 of an endpoint, generated from the contract with the structure and
 * names of the original's (reference/README.md §8): one schema with the wrapper
 * elements and the types in order of first use, `<op>SoapIn`/`SoapOut`/`HttpGetIn`/…
 * messages, a portType per kind of binding, and a binding and a service port for each
 * registered binding (protocol/bindings/registry.ts).
 *
 * One intended difference: the original types the HTTP GET/POST `resizeModes` part as
 * `StringArray`, a restriction of `soapenc:Array` whose schema it imports without a
 * location, which wsimport refuses and zeep must download. Here it is `s:string` (the
 * parameter repeats, as any urlEncoded part may), so every client stack loads the WSDL
 * offline; the SOAP messages are unchanged.
 */
import { type Endpoint, type Operation, operationsAt } from '../contract/operations.ts';
import type { ComplexType, Field, ValueType } from '../contract/schema.ts';
import { wsAuthHeader } from '../contract/types.ts';
import { type WsdlDescription, wsdlDescriptions } from '../protocol/binding.ts';
import { BINDINGS } from '../protocol/bindings/registry.ts';
import { el, type Node, renderDocument } from './markup.ts';

export const WSDL_NS = 'http://schemas.xmlsoap.org/wsdl/';
const GUID_TYPES_NS = 'http://microsoft.com/wsdl/types/';
const SOAP_HTTP_TRANSPORT = 'http://schemas.xmlsoap.org/soap/http';
/** Replaced by the endpoint's absolute URL when the WSDL is served. */
export const ADDRESS_PLACEHOLDER = '{{scoop-endpoint-url}}';
/** The registered bindings of the original's wire, which the WSDL describes. */
const WSDL_BINDINGS = wsdlDescriptions(BINDINGS);

function typeRef(type: ValueType): string {
  if (type.kind === 'scalar') return type.name === 'guid' ? 's1:guid' : `s:${type.name}`;
  return `tns:${type.name}`;
}

function elementFor(f: Field): Node {
  const attributes: Record<string, string> = {
    minOccurs: f.required ? '1' : '0',
    maxOccurs: '1',
    name: f.name,
  };
  if (f.nillable) attributes.nillable = 'true';
  attributes.type = typeRef(f.type);
  return el('s:element', attributes);
}

function sequence(fields: readonly Field[]): Node[] {
  return fields.length === 0 ? [] : [el('s:sequence', {}, fields.map(elementFor))];
}

/** XmlSchemaExporter order: a type right after its first use, depth-first. */
class SchemaBuilder {
  readonly nodes: Node[] = [];
  private readonly done = new Set<string>();

  element(name: string, fields: readonly Field[]): void {
    this.nodes.push(el('s:element', { name }, [el('s:complexType', {}, sequence(fields))]));
    this.typesOf(fields);
  }

  typesOf(fields: readonly Field[]): void {
    for (const f of fields) this.type(f.type);
  }

  type(type: ValueType): void {
    if (type.kind === 'scalar' || this.done.has(type.name)) return;
    this.done.add(type.name);
    switch (type.kind) {
      case 'complex':
        this.complex(type);
        break;
      case 'array': {
        const item: Record<string, string> = { minOccurs: '0', maxOccurs: 'unbounded', name: type.itemName };
        if (type.nillableItems) item.nillable = 'true';
        item.type = typeRef(type.item);
        this.nodes.push(
          el('s:complexType', { name: type.name }, [el('s:sequence', {}, [el('s:element', item)])]),
        );
        this.type(type.item);
        break;
      }
      case 'enum':
        this.nodes.push(
          el('s:simpleType', { name: type.name }, [
            el(
              's:restriction',
              { base: 's:string' },
              type.values.map((value) => el('s:enumeration', { value })),
            ),
          ]),
        );
        break;
    }
  }

  private complex(type: ComplexType): void {
    this.nodes.push(el('s:complexType', { name: type.name }, sequence(type.fields)));
    this.typesOf(type.fields);
  }

  /** The SoapHeader class adds `<s:anyAttribute />`. */
  authHeader(): void {
    if (this.done.has(wsAuthHeader.name)) return;
    this.done.add(wsAuthHeader.name);
    this.nodes.push(el('s:element', { name: 'wsAuthHeader', type: 'tns:wsAuthHeader' }));
    this.nodes.push(
      el('s:complexType', { name: wsAuthHeader.name }, [
        ...sequence(wsAuthHeader.fields),
        el('s:anyAttribute'),
      ]),
    );
  }
}

function types(endpoint: Endpoint, operations: readonly Operation[], namespace: string): Node {
  const schema = new SchemaBuilder();
  for (const op of operations) {
    schema.element(op.name, op.params);
    schema.nodes.push(
      el('s:element', { name: `${op.name}Response` }, [
        el('s:complexType', {}, [
          el('s:sequence', {}, [
            el('s:element', {
              minOccurs: '0',
              maxOccurs: '1',
              name: `${op.name}Result`,
              type: `tns:${op.result.name}`,
            }),
          ]),
        ]),
      ]),
    );
    schema.type(op.result);
    if (endpoint.requiresToken) schema.authHeader();
  }
  for (const op of operations) {
    schema.nodes.push(
      el('s:element', { name: op.result.name, nillable: 'true', type: `tns:${op.result.name}` }),
    );
  }
  const imports = endpoint.requiresToken ? [el('s:import', { namespace: GUID_TYPES_NS })] : [];
  const schemas = [
    el('s:schema', { elementFormDefault: 'qualified', targetNamespace: namespace }, [
      ...imports,
      ...schema.nodes,
    ]),
  ];
  if (endpoint.requiresToken) {
    schemas.push(
      el('s:schema', { elementFormDefault: 'qualified', targetNamespace: GUID_TYPES_NS }, [
        el('s:simpleType', { name: 'guid' }, [
          el('s:restriction', { base: 's:string' }, [
            el('s:pattern', {
              value: '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}',
            }),
          ]),
        ]),
      ]),
    );
  }
  return el('wsdl:types', {}, schemas);
}

function message(name: string, parts: Node[]): Node {
  return el('wsdl:message', { name }, parts);
}

/** The SOAP bindings share one portType and its messages; each HTTP binding has its own. */
function hasSoap(): boolean {
  return WSDL_BINDINGS.some((d) => d.style === 'soap');
}

function httpVerbs(): Array<'HttpGet' | 'HttpPost'> {
  return WSDL_BINDINGS.flatMap((d) => (d.style === 'http' ? [d.wsdlName] : []));
}

function messages(endpoint: Endpoint, operations: readonly Operation[]): Node[] {
  const soap = operations.flatMap((op) => [
    message(`${op.name}SoapIn`, [el('wsdl:part', { name: 'parameters', element: `tns:${op.name}` })]),
    message(`${op.name}SoapOut`, [
      el('wsdl:part', { name: 'parameters', element: `tns:${op.name}Response` }),
    ]),
    ...(endpoint.requiresToken
      ? [
          message(`${op.name}wsAuthHeader`, [
            el('wsdl:part', { name: 'wsAuthHeader', element: 'tns:wsAuthHeader' }),
          ]),
        ]
      : []),
  ]);
  // Spec 4.2 rule 1: every HTTP parameter is text; a list parameter simply repeats.
  const http = (verb: 'HttpGet' | 'HttpPost') =>
    operations.flatMap((op) => [
      message(
        `${op.name}${verb}In`,
        op.params.map((p) => el('wsdl:part', { name: p.name, type: 's:string' })),
      ),
      message(`${op.name}${verb}Out`, [el('wsdl:part', { name: 'Body', element: `tns:${op.result.name}` })]),
    ]);
  return [...(hasSoap() ? soap : []), ...httpVerbs().flatMap(http)];
}

function portTypes(endpoint: Endpoint, operations: readonly Operation[]): Node[] {
  const portType = (suffix: string) =>
    el(
      'wsdl:portType',
      { name: `${endpoint.serviceName}${suffix}` },
      operations.map((op) =>
        el('wsdl:operation', { name: op.name }, [
          el('wsdl:input', { message: `tns:${op.name}${suffix}In` }),
          el('wsdl:output', { message: `tns:${op.name}${suffix}Out` }),
        ]),
      ),
    );
  return [...(hasSoap() ? ['Soap'] : []), ...httpVerbs()].map(portType);
}

function soapBinding(
  endpoint: Endpoint,
  operations: readonly Operation[],
  namespace: string,
  prefix: 'soap' | 'soap12',
): Node {
  const svc = endpoint.serviceName;
  return el(
    'wsdl:binding',
    { name: `${svc}${prefix === 'soap' ? 'Soap' : 'Soap12'}`, type: `tns:${svc}Soap` },
    [
      el(`${prefix}:binding`, { transport: SOAP_HTTP_TRANSPORT }),
      ...operations.map((op) =>
        el('wsdl:operation', { name: op.name }, [
          el(`${prefix}:operation`, { soapAction: `${namespace}/${op.name}`, style: 'document' }),
          el('wsdl:input', {}, [
            el(`${prefix}:body`, { use: 'literal' }),
            ...(endpoint.requiresToken
              ? [
                  el(`${prefix}:header`, {
                    message: `tns:${op.name}wsAuthHeader`,
                    part: 'wsAuthHeader',
                    use: 'literal',
                  }),
                ]
              : []),
          ]),
          el('wsdl:output', {}, [el(`${prefix}:body`, { use: 'literal' })]),
        ]),
      ),
    ],
  );
}

function httpBinding(endpoint: Endpoint, operations: readonly Operation[], verb: 'GET' | 'POST'): Node {
  const name = `${endpoint.serviceName}${verb === 'GET' ? 'HttpGet' : 'HttpPost'}`;
  const input =
    verb === 'GET'
      ? el('http:urlEncoded')
      : el('mime:content', { type: 'application/x-www-form-urlencoded' });
  return el('wsdl:binding', { name, type: `tns:${name}` }, [
    el('http:binding', { verb }),
    ...operations.map((op) =>
      el('wsdl:operation', { name: op.name }, [
        el('http:operation', { location: `/${op.name}` }),
        el('wsdl:input', {}, [input]),
        el('wsdl:output', {}, [el('mime:mimeXml', { part: 'Body' })]),
      ]),
    ),
  ]);
}

/** The address element of a binding's port. */
function addressElement(description: WsdlDescription): string {
  switch (description.style) {
    case 'soap':
      return description.version === '1.1' ? 'soap:address' : 'soap12:address';
    case 'http':
      return 'http:address';
    default:
      return unknownStyle(description);
  }
}

/** A new style of binding must say what the WSDL shows of it (this fails to compile until it does). */
function unknownStyle(description: never): never {
  throw new Error(`no WSDL for the binding style of ${JSON.stringify(description)}`);
}

function service(endpoint: Endpoint): Node {
  const svc = endpoint.serviceName;
  const ports = WSDL_BINDINGS.map((d) =>
    el('wsdl:port', { name: `${svc}${d.wsdlName}`, binding: `tns:${svc}${d.wsdlName}` }, [
      el(addressElement(d), { location: ADDRESS_PLACEHOLDER }),
    ]),
  );
  return el('wsdl:service', { name: svc }, ports);
}

/** The binding element of one registered binding. */
function bindingElement(
  description: WsdlDescription,
  endpoint: Endpoint,
  operations: readonly Operation[],
  namespace: string,
): Node {
  switch (description.style) {
    case 'soap':
      return soapBinding(endpoint, operations, namespace, description.version === '1.1' ? 'soap' : 'soap12');
    case 'http':
      return httpBinding(endpoint, operations, description.verb);
    default:
      return unknownStyle(description);
  }
}

/** The WSDL of one endpoint, with ADDRESS_PLACEHOLDER where its URL goes. */
export function generateWsdl(endpoint: Endpoint, namespace: string): string {
  const operations = operationsAt(endpoint);
  const root = el(
    'wsdl:definitions',
    {
      'xmlns:soapenc': 'http://schemas.xmlsoap.org/soap/encoding/',
      'xmlns:soap12': 'http://schemas.xmlsoap.org/wsdl/soap12/',
      ...(endpoint.requiresToken ? { 'xmlns:s1': GUID_TYPES_NS } : {}),
      'xmlns:http': 'http://schemas.xmlsoap.org/wsdl/http/',
      'xmlns:tns': namespace,
      'xmlns:mime': 'http://schemas.xmlsoap.org/wsdl/mime/',
      'xmlns:tm': 'http://microsoft.com/wsdl/mime/textMatching/',
      'xmlns:s': 'http://www.w3.org/2001/XMLSchema',
      'xmlns:soap': 'http://schemas.xmlsoap.org/wsdl/soap/',
      targetNamespace: namespace,
      'xmlns:wsdl': WSDL_NS,
    },
    [
      types(endpoint, operations, namespace),
      ...messages(endpoint, operations),
      ...portTypes(endpoint, operations),
      ...WSDL_BINDINGS.map((d) => bindingElement(d, endpoint, operations, namespace)),
      service(endpoint),
    ],
  );
  return renderDocument(root);
}
