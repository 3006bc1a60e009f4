/**
 * Which answers an import prepares (docs/performance.md "Prepared answers"). Content
 * changes only at an import, so an answer that depends on nothing but stored content is
 * rendered then, once, instead of on every request: for each such operation, the record
 * kind whose records key its answers, the arguments a key stands for, and the key a call
 * asks for. getBild is prepared only as stored (0×0): a resized variant is made on request,
 * and its answer then kept as a prepared one is (madeKeyOf).
 */
import { createHash } from 'node:crypto';
import { ARTIKEL_REFERENCES, emailKey, type RecordKind } from '../contract/documents.ts';
import { type Arguments, OPERATIONS, type OperationName } from '../contract/operations.ts';

export interface PreparedOperation {
  readonly name: OperationName;
  /** The kind whose records key the answers. */
  readonly kind: RecordKind;
  /** One answer for the whole kind (the newsletter list), under the key ''. */
  readonly whole: boolean;
  /** Kinds whose records the answer also shows (an article's areas and attachments). */
  readonly shows: readonly RecordKind[];
  argumentsOf(key: string): Arguments;
  /** The key a call's (coerced) arguments ask for; undefined: not answered from a prepared answer. */
  keyOf(args: Arguments): string | undefined;
  /**
   * For a call no import prepares but whose answer depends only on the content and the
   * arguments (a resized image): the key it is kept under once its handler made it
   * (prepared-answer.ts keepMade); undefined for any other call.
   */
  madeKeyOf?(args: Arguments): string | undefined;
}

function byId(name: OperationName, kind: RecordKind, param: string, shows: readonly RecordKind[] = []) {
  return {
    name,
    kind,
    whole: false,
    shows,
    argumentsOf: (key: string) => ({ [param]: Number(key) }),
    keyOf: (args: Arguments) => String(args[param]),
  } satisfies PreparedOperation;
}

export const PREPARED: readonly PreparedOperation[] = [
  byId('getArtikelDetails', 'artikel', 'artikelID', [...new Set(ARTIKEL_REFERENCES.map((r) => r.kind))]),
  byId('getBereich', 'bereiche', 'bereichID'),
  byId('getCityAppBereich', 'cityAppBereiche', 'cityAppBereichID'),
  byId('getAnhang', 'anhaenge', 'anhangID'),
  byId('checkAnhangVorhanden', 'anhaenge', 'anhangID'),
  {
    ...byId('getBild', 'bilder', 'bildID'),
    argumentsOf: (key) => ({ bildID: Number(key), width: 0, height: 0, resizeModes: [] }),
    keyOf: (args) => (args.width === 0 && args.height === 0 ? String(args.bildID) : undefined),
    // Everything a variant is made of but the process's own settings (background, largest
    // dimension), which a pack, being the process's own, shares.
    madeKeyOf: (args) =>
      args.width === 0 && args.height === 0
        ? undefined
        : `${args.bildID} ${args.width}x${args.height} ${(args.resizeModes as readonly string[]).join(',')}`,
  },
  {
    name: 'getAbonnierteNewsletter',
    kind: 'abonnements',
    whole: false,
    shows: [],
    argumentsOf: (key) => ({ email: key }),
    keyOf: (args) => emailKey(String(args.email)),
  },
  {
    name: 'getNewsletter',
    kind: 'newsletter',
    whole: true,
    shows: [],
    argumentsOf: () => ({}),
    keyOf: () => '',
  },
];

const BY_NAME: ReadonlyMap<string, PreparedOperation> = new Map(PREPARED.map((p) => [p.name, p]));

export function preparedOperation(name: string): PreparedOperation | undefined {
  return BY_NAME.get(name);
}

/**
 * Raised whenever what the writer makes of the same content changes (escaping, layout) or
 * how a fragment refers to binaries (fragment.ts),
 * which the contract's shape below cannot see: a store's answers of another format are
 * never sent, and the next import prepares them all again.
 */
const RENDERING = 3;

/** The format of the answers this build prepares: the rendering and the contract's result types. */
export const ANSWERS_FORMAT = `${RENDERING}-${createHash('sha256')
  .update(JSON.stringify(OPERATIONS.map((o) => [o.name, o.result])))
  .digest('hex')
  .slice(0, 16)}`;
