/**
 * One handler per operation: coerced arguments and the store in, a result object out
 * (keyed by the contract's field names). No XML, no HTTP, no SQL here.
 */
import {
  type ArtikelDocument,
  emailKey,
  type ReferencedKind,
  type StoredDocument,
} from '../contract/documents.ts';
import { ScoopError } from '../contract/errors.ts';
import type { ArgumentsOf, OperationName, ResultOf } from '../contract/operations.ts';
import type { Anhang, ArtikelDetails, Bild, Newsletter } from '../contract/types.ts';
import { FORMATS, filenameFor } from '../images/formats.ts';
import type { ImageService } from '../images/image-service.ts';
import { type ContentStore, parseDoc, type Snapshot, type StoredRecord } from '../store/content-store.ts';

export interface ServiceOptions {
  /** Largest `width`/`height` getBild accepts. */
  readonly maxImageDimension: number;
}

export interface ServiceContext {
  /** Handlers only read: an import prepares answers with them over its own transaction (src/prepare/). */
  readonly store: Pick<ContentStore, 'read'>;
  readonly now: () => number;
  readonly options: ServiceOptions;
  /** getBild's resizing: queue, variant cache, sharp. */
  readonly images: Pick<ImageService, 'held' | 'variant' | 'imageGone'>;
  /** Tells the caller the answer stops being right at `at` (ms), e.g. when an article's window ends. */
  readonly expires?: (at: number) => void;
  /** Fires when the client has gone before its answer was written: waiting work is dropped. */
  readonly signal?: AbortSignal;
}

export type Handler<N extends OperationName> = (
  args: ArgumentsOf<N>,
  context: ServiceContext,
) => Promise<ResultOf<N>>;

/** One handler per operation: a missing or unknown one does not compile. */
export type Handlers = { readonly [N in OperationName]: Handler<N> };

function unknownId(name: string, id: number): ScoopError {
  return new ScoopError('UNKNOWN_ID', `Unknown ${name}: ${id}`);
}

/** An attachment or image: its document, with the size and bytes of its blob. */
function withBinary<K extends 'anhaenge' | 'bilder'>(
  record: StoredRecord<K>,
): StoredDocument<K> & Pick<Anhang, 'size' | 'data'> {
  const blob = record.blob!;
  return { ...parseDoc(record), size: blob.size, data: blob.bytes ?? blob.source };
}

/** bundle-format.md: outside `sichtbarVon`/`sichtbarBis` an article counts as not published. */
function isPublished(doc: ArtikelDocument, now: number): boolean {
  return (
    (doc.sichtbarVon === null || now >= doc.sichtbarVon) &&
    (doc.sichtbarBis === null || now <= doc.sichtbarBis)
  );
}

async function resolve<K extends ReferencedKind, T>(
  snapshot: Snapshot,
  kind: K,
  ids: number[],
  make: (r: StoredRecord<K>) => T,
): Promise<T[]> {
  const found = await snapshot.getMany(
    kind,
    ids.map((id) => String(id)),
  );
  // The import guarantees every reference resolves; a missing one is skipped, not fatal.
  return ids.flatMap((id) => {
    const record = found.get(String(id));
    return record ? [make(record)] : [];
  });
}

async function artikelDetails(
  snapshot: Snapshot,
  id: number,
  now: number,
  expires: ((at: number) => void) | undefined,
): Promise<ArtikelDetails | undefined> {
  const record = await snapshot.get('artikel', String(id));
  if (!record) return undefined;
  const doc = parseDoc(record);
  if (!isPublished(doc, now)) return undefined;
  // Published until its window closes: an answer kept for later must not outlive that.
  if (doc.sichtbarBis !== null) expires?.(doc.sichtbarBis + 1);
  return {
    text: doc.text,
    bereiche: await resolve(snapshot, 'bereiche', doc.bereiche, parseDoc),
    cityAppBereiche: await resolve(snapshot, 'cityAppBereiche', doc.cityAppBereiche, parseDoc),
    anhaenge: await resolve(snapshot, 'anhaenge', doc.anhaenge, withBinary),
    links: doc.links,
    kontakte: doc.kontakte,
  };
}

function checkDimension(name: string, value: number, max: number): void {
  if (value < 0 || value > max) {
    throw new ScoopError(
      'INVALID_PARAMETER',
      `Parameter ${name} must be between 0 and ${max}; it was ${value}.`,
    );
  }
}

export const HANDLERS: Handlers = {
  async checkAnhangVorhanden(args, { store }) {
    const id = args.anhangID;
    const exists = await store.read(async (s) => (await s.get('anhaenge', String(id))) !== undefined);
    return { anhangVorhanden: exists };
  },

  async getArtikelDetails(args, { store, now, expires }) {
    const id = args.artikelID;
    const details = await store.read((s) => artikelDetails(s, id, now(), expires));
    if (!details) throw unknownId('artikelID', id);
    return { artikelDetails: details };
  },

  async getAbonnierteNewsletter(args, { store }) {
    const key = emailKey(args.email);
    const ids = await store.read(async (s) => {
      const record = await s.get('abonnements', key);
      return record ? parseDoc(record).newsletterIDs : [];
    });
    return { newsletter: ids };
  },

  async getNewsletter(_args, { store }) {
    const list = await store.read(async (s) =>
      (await s.all('newsletter'))
        .map(({ record }) => parseDoc(record))
        .filter((n) => n.oeffentlich)
        .map(({ name, newsletterID }): Newsletter => ({ name, newsletterID })),
    );
    return { newsletter: list };
  },

  async getCityAppBereich(args, { store }) {
    const id = args.cityAppBereichID;
    const found = await store.read((s) => s.get('cityAppBereiche', String(id)));
    if (!found) throw unknownId('cityAppBereichID', id);
    return { cityAppBereich: parseDoc(found) };
  },

  async getBild(args, context) {
    const { store, options, images } = context;
    const { bildID: id, width, height } = args;
    checkDimension('width', width, options.maxImageDimension);
    checkDimension('height', height, options.maxImageDimension);
    // A resize reads the image's content only when its variant is not kept: the one chunk is
    // left to the blob's source then (the original, up to 192 KiB, on every request else).
    const asStored = width === 0 && height === 0;
    const found = await store.read((s) => s.get('bilder', String(id), asStored));
    if (!found) {
      // A deleted image's variants go when it is next asked for (docs/images.md).
      images.imageGone(id);
      throw unknownId('bildID', id);
    }
    // 0×0 is the image exactly as published, metadata and all (docs/images.md).
    if (asStored) return { bild: withBinary(found) };
    const request = {
      width,
      height,
      modes: args.resizeModes,
      maxDimension: options.maxImageDimension,
      bildID: id,
    };
    const variant =
      images.held(found.blob!, request) ??
      // Read only here: the signal is made on first use (server/exchange.ts).
      (await images.variant(found.blob!, request, context.signal));
    // Not withBinary, which would decode a small image's stored base64 for nothing.
    const doc = parseDoc(found);
    // size and mimetype describe the bytes returned, not the stored ones.
    const resized: Bild = {
      ...doc,
      filename: filenameFor(doc.filename, variant.format),
      size: variant.size,
      mimetype: FORMATS[variant.format].mimetype,
      data: variant.data,
    };
    return { bild: resized };
  },

  async getAnhang(args, { store }) {
    const id = args.anhangID;
    const found = await store.read((s) => s.get('anhaenge', String(id)));
    if (!found) throw unknownId('anhangID', id);
    return { anhang: withBinary(found) };
  },

  async getBereich(args, { store }) {
    const id = args.bereichID;
    const found = await store.read((s) => s.get('bereiche', String(id)));
    if (!found) throw unknownId('bereichID', id);
    return { bereich: parseDoc(found) };
  },
};
