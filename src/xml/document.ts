/**
 * What the request reader (reader.ts) and its fast path (plain-reader.ts) make of a
 * document: a small element tree with namespaces resolved, and the limits they parse under.
 */

export interface XmlAttribute {
  readonly uri: string;
  readonly local: string;
  readonly prefix: string;
  readonly value: string;
}

export interface XmlElement {
  readonly uri: string;
  readonly local: string;
  readonly prefix: string;
  readonly attributes: readonly XmlAttribute[];
  readonly children: XmlElement[];
  /** Character data directly inside this element (text and CDATA), concatenated. */
  text: string;
  /**
   * Namespace declarations in scope, for QName-valued content: a lookup object whose
   * inherited declarations sit on its prototype chain (read it with `[prefix]` or `for…in`).
   */
  readonly namespaces: Readonly<Record<string, string>>;
}

export interface XmlLimits {
  readonly maxDepth: number;
  readonly maxElements: number;
  /** Attributes on one element (namespace declarations included). */
  readonly maxAttributes: number;
  /** Attributes in the whole document (namespace declarations included). */
  readonly maxDocumentAttributes: number;
  readonly maxNameLength: number;
  readonly maxTextLength: number;
  /** Length of one attribute value: 64 KiB, as Apache CXF's `maxAttributeSize`. */
  readonly maxAttributeLength: number;
}

export const DEFAULT_XML_LIMITS: XmlLimits = {
  maxDepth: 32,
  maxElements: 10_000,
  maxAttributes: 64,
  maxDocumentAttributes: 2048,
  maxNameLength: 256,
  maxTextLength: 1_048_576,
  maxAttributeLength: 65_536,
};

export interface ParsedDocument {
  readonly root: XmlElement;
  /** True when a processing instruction (other than the XML declaration) occurred. */
  readonly hasProcessingInstruction: boolean;
}

/** The root of every scope chain: no prototype, so a prefix such as `constructor` finds nothing. */
const NO_NAMESPACES: Readonly<Record<string, string>> = Object.freeze(Object.create(null));

/** How many names a scope holds (a chained one: too many to copy): only small ones are copied again. */
const NAMES = Symbol('names in scope');
type CopiedScope = Record<string, string> & { [NAMES]?: number };
/** In-scope names up to which a scope is copied rather than chained. */
const MAX_COPIED_NAMES = 32;

/**
 * The declarations in scope for an element: its own on top of its parent's. A small scope
 * is copied: a SOAP envelope's few declarations then make a few plain objects, where a
 * prototype chain made V8 turn each parent into a prototype (half the time of parsing a
 * small request). Past MAX_COPIED_NAMES names in scope they are chained by prototype
 * instead: copying cost O(declarations in scope) per element, so 31 ancestors with 64
 * declarations each over 10,000 leaves (an 88 KB body) took seconds of CPU; a chain costs
 * O(own declarations). An element that declares nothing shares its parent's scope
 * (Namespaces in XML 1.0 §6.1: scope is inherited).
 */
export function namespacesInScope(
  inherited: Readonly<Record<string, string>> | undefined,
  declared: Readonly<Record<string, string>>,
): Readonly<Record<string, string>> {
  const parent = inherited ?? NO_NAMESPACES;
  const names = Object.keys(declared);
  if (names.length === 0) return parent;
  const inParent = parent === NO_NAMESPACES ? 0 : (parent as CopiedScope)[NAMES];
  if (inParent !== undefined && inParent + names.length <= MAX_COPIED_NAMES) {
    // No prototype, as NO_NAMESPACES: a prefix such as `constructor` finds nothing.
    const scope: CopiedScope = Object.create(null);
    let count = 0;
    for (const name in parent) {
      scope[name] = parent[name]!;
      count++;
    }
    for (const name of names) {
      if (!(name in scope)) count++;
      scope[name] = declared[name]!;
    }
    scope[NAMES] = count;
    return scope;
  }
  const scope: CopiedScope = Object.create(parent);
  for (const name of names) scope[name] = declared[name]!;
  // Its own, so that a chain never reads a copied ancestor's count as its own.
  scope[NAMES] = Number.POSITIVE_INFINITY;
  return scope;
}
