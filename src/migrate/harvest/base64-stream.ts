/**
 * xs:base64Binary decoded as it streams in, piece by piece: only the 0–3 characters that
 * do not yet fill a 4-character group are carried over, so a 200 MB attachment is never
 * held. Strict where Buffer.from(…, 'base64') is lenient: a character outside the
 * alphabet, padding anywhere but at the end, or a length that is not a multiple of 4 is
 * an error (RFC 4648 §3.3: implementations must reject such data unless told otherwise).
 * XML whitespace between characters is allowed (XML Schema's base64Binary).
 */

export class Base64Error extends Error {
  override readonly name = 'Base64Error';
}

const ALPHABET = /^[A-Za-z0-9+/=]*$/;
const WHITESPACE = /[ \t\r\n]/;
const WHITESPACE_ALL = /[ \t\r\n]+/g;
const EMPTY = Buffer.alloc(0);

export class Base64Decoder {
  private carry = '';
  private padded = false;

  /** The bytes the characters in `chunk` complete. */
  push(chunk: string): Buffer {
    let text = chunk;
    if (WHITESPACE.test(text)) text = text.replace(WHITESPACE_ALL, '');
    if (text.length === 0) return EMPTY;
    if (!ALPHABET.test(text)) throw new Base64Error('a character outside the base64 alphabet');
    if (this.padded) throw new Base64Error('characters after the padding');
    text = this.carry + text;
    const pad = text.indexOf('=');
    if (pad >= 0) {
      // Padding ends the data: at most two `=`, only `=` after the first, a complete last group.
      if (text.length % 4 !== 0 || text.length - pad > 2 || /[^=]/.test(text.slice(pad))) {
        throw new Base64Error('padding before the end of the data');
      }
      this.padded = true;
    }
    const usable = text.length - (text.length % 4);
    this.carry = text.slice(usable);
    return usable === 0 ? EMPTY : Buffer.from(text.slice(0, usable), 'base64');
  }

  /** Checks that nothing is left over: the data was a whole number of groups. */
  end(): void {
    if (this.carry.length > 0) throw new Base64Error('the data ends inside a 4-character group');
  }
}
