// Tool-call arguments stream as JSON text, so a file written through a tool arrives with its line
// breaks as the two characters `\n`. The tokenizer reads tool arguments through this decoder:
// `\n` and `\r` become a line break, `\t` a space, `\"` and `\\` the character itself (`\uXXXX` is
// left as written: rare in text and harmless for repetition).

const BACKSLASH = 92

export class JsonUnescaper {
  private pending = false

  /** The character `code` stands for, or -1 when it opens an escape and stands for nothing yet. */
  next(code: number): number {
    if (this.pending) {
      this.pending = false
      if (code === 110 || code === 114) return 10
      if (code === 116) return 32
      return code
    }
    if (code === BACKSLASH) {
      this.pending = true
      return -1
    }
    return code
  }
}
