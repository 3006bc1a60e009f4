/**
 * A small element tree for generated documents (WSDL, DISCO), rendered as the original
 * renders them: two-space indentation, LF line ends, `<name />` for empty elements.
 */
import { escapeAttribute } from '../xml/escape.ts';

export interface Node {
  readonly name: string;
  readonly attributes: ReadonlyArray<readonly [string, string]>;
  readonly children: readonly Node[];
}

export function el(
  name: string,
  attributes: Record<string, string> = {},
  children: readonly Node[] = [],
): Node {
  return { name, attributes: Object.entries(attributes), children };
}

function render(node: Node, depth: number, out: string[]): void {
  const indent = '  '.repeat(depth);
  const attributes = node.attributes.map(([k, v]) => ` ${k}="${escapeAttribute(v)}"`).join('');
  if (node.children.length === 0) {
    out.push(`${indent}<${node.name}${attributes} />`);
    return;
  }
  out.push(`${indent}<${node.name}${attributes}>`);
  for (const child of node.children) render(child, depth + 1, out);
  out.push(`${indent}</${node.name}>`);
}

export function renderDocument(root: Node): string {
  const out = ['<?xml version="1.0" encoding="utf-8"?>'];
  render(root, 0, out);
  return out.join('\n');
}
