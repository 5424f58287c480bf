// identical chunks: the provider streams the same delta again and again (blank "\n" chunks, or one
// token emitted forever). The only rule that reads delta boundaries rather than the text, so by nature
// not split-invariant. dsh-loop-guard trips after 60 identical visible-text chunks; tool arguments get a
// higher count, as a file's padding streams in equal pieces.
// Deliberately let through: deltas of one non-space character ("哈", "! ", "😀"): symbol-run judges such
// runs on the text itself, whatever the delta sizes.

import { isWhitespace } from '../text/char-classes.ts'
import type { RuleFinding } from '../finding.ts'

/** A delta holding two distinct non-space characters, or only white space. */
function isLoopMaterial(delta: string): boolean {
  let symbol = -1
  let halfCharacter = false
  for (let i = 0; i < delta.length; i++) {
    const code = delta.codePointAt(i)
    if (code === undefined) break
    if (code > 0xffff) i++
    // A lone surrogate is half of a character split across deltas: its other half decides. A delta
    // of halves and white space alone is no blank delta: 3-char deltas over a run of "😀 " read
    // "\ude00 \ud83d" in one phase of the split, and the run is symbol-run's to judge in every phase.
    if (code >= 0xd800 && code <= 0xdfff) {
      halfCharacter = true
      continue
    }
    if (isWhitespace(code) || code === 0xfe0f || code === 0x200d) continue
    if (symbol === -1) symbol = code
    else if (code !== symbol) return true
  }
  return symbol === -1 && !halfCharacter
}

/**
 * `a === b`, with the usual answer found inline: deltas of one length mostly differ in their first
 * char, and comparing two distinct strings' contents is a runtime call (a measured 4 % of the
 * detector's time on 16-char deltas).
 */
function sameText(a: string, b: string): boolean {
  return a.length === b.length && a.charCodeAt(0) === b.charCodeAt(0) && a === b
}

export class IdenticalChunksRule {
  private previous = ''
  private run = 0

  constructor(private readonly maxIdenticalChunks: number) {}

  /** Called once per non-empty delta after its characters; `length` is the side's length after it. */
  add(delta: string, length: number): RuleFinding | undefined {
    this.run = sameText(delta, this.previous) ? this.run + 1 : 1
    this.previous = delta
    if (this.maxIdenticalChunks === 0 || this.run < this.maxIdenticalChunks || !isLoopMaterial(delta)) return undefined
    const repeatedChars = (this.run - 1) * delta.length
    return { rule: 'identical-chunks', loopStart: length - repeatedChars, repeatedChars, verifiedAt: length }
  }
}
