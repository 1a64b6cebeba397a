/**
 * Splits a LIST response body (`{"kind":"ServiceList","metadata":{...},"items":[{...},{...}]}`)
 * into its items while it arrives, so that no single `JSON.parse` of tens of megabytes holds the
 * event loop (an s10k EndpointSlice list is tens of megabytes): each chunk is scanned for the item boundaries
 * and every complete item is parsed on its own. Only the structure is scanned here (brackets
 * outside strings); `JSON.parse` still validates each item and the envelope.
 */
const QUOTE = 0x22;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

export class ListBody {
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** Inside the top-level `items` array. */
  #inItems = false;
  /** Start of the item being read in the current chunk (0 when it began in an earlier one), or -1. */
  #itemStart = -1;
  readonly #itemParts: string[] = [];
  /** The body without the items' text: the envelope. */
  readonly #envelope: string[] = [];
  #envelopeStart = 0;
  /** The top-level key being read, and the last one read (the key of the next top-level value). */
  #keyStart = -1;
  readonly #keyParts: string[] = [];
  #lastKey = '';
  #items = 0;

  /** Scans one chunk of the body (decoded text, e.g. from `res.setEncoding('utf8')`), calling `onItem` for each complete item. */
  push(chunk: string, onItem: (item: unknown) => void): void {
    const length = chunk.length;
    // Strings are most of a body (names, labels, managedFields): they are skipped with `indexOf`
    // (native) from quote to quote, stopping only at backslashes; `backslash` is the next one
    // at or after `i`, found once per pass over it (-1: none left in this chunk).
    let backslash = chunk.indexOf('\\');
    let i = 0;
    while (i < length) {
      if (this.#inString) {
        if (this.#escaped) {
          this.#escaped = false;
          i++;
          continue;
        }
        if (backslash !== -1 && backslash < i) backslash = chunk.indexOf('\\', i);
        const quote = chunk.indexOf('"', i);
        if (backslash !== -1 && (quote === -1 || backslash < quote)) {
          // An escape: the next character (maybe in the next chunk) is taken as it is.
          this.#escaped = true;
          i = backslash + 1;
          continue;
        }
        if (quote === -1) break; // the string goes on in the next chunk
        this.#inString = false;
        if (this.#keyStart >= 0) {
          this.#lastKey = this.#keyParts.join('') + chunk.slice(this.#keyStart, quote);
          this.#keyParts.length = 0;
          this.#keyStart = -1;
        }
        i = quote + 1;
        continue;
      }
      const c = chunk.charCodeAt(i);
      switch (c) {
        case QUOTE:
          this.#inString = true;
          if (this.#depth === 1) this.#keyStart = i + 1;
          break;
        case OPEN_OBJECT:
        case OPEN_ARRAY:
          if (this.#inItems && this.#depth === 2) this.#itemStart = i;
          else if (this.#depth === 1 && c === OPEN_ARRAY && this.#lastKey === 'items') {
            this.#inItems = true;
            this.#envelope.push(chunk.slice(this.#envelopeStart, i + 1));
          }
          this.#depth++;
          break;
        case CLOSE_OBJECT:
        case CLOSE_ARRAY:
          this.#depth--;
          if (this.#depth < 0) throw new SyntaxError('LIST body: unbalanced brackets');
          if (this.#inItems && this.#depth === 2) {
            const text = this.#itemParts.join('') + chunk.slice(this.#itemStart, i + 1);
            this.#itemParts.length = 0;
            this.#itemStart = -1;
            this.#items++;
            onItem(JSON.parse(text));
          } else if (this.#inItems && this.#depth === 1) {
            this.#inItems = false;
            this.#envelopeStart = i;
          }
          break;
        default:
          break;
      }
      i++;
    }
    if (this.#itemStart >= 0) {
      this.#itemParts.push(chunk.slice(this.#itemStart));
      this.#itemStart = 0;
    }
    if (this.#keyStart >= 0) {
      this.#keyParts.push(chunk.slice(this.#keyStart));
      this.#keyStart = 0;
    }
    if (!this.#inItems) {
      this.#envelope.push(chunk.slice(this.#envelopeStart));
      this.#envelopeStart = 0;
    }
  }

  /** The envelope (kind, metadata...) with `items: []`, once the whole body was pushed; throws on a cut-off or malformed body. */
  end(): Record<string, unknown> {
    if (this.#depth !== 0 || this.#inString) throw new SyntaxError(`LIST body ends early (after ${this.#items} items)`);
    const envelope: unknown = JSON.parse(this.#envelope.join(''));
    if (envelope === null || typeof envelope !== 'object' || Array.isArray(envelope))
      throw new SyntaxError('LIST body is not an object');
    return envelope as Record<string, unknown>;
  }

  /** Items parsed so far. */
  get items(): number {
    return this.#items;
  }
}
