import type { RuleName } from './types.ts'

/** What a rule reports about one side; the detector adds the side and `at`. */
export interface RuleFinding {
  readonly rule: RuleName
  readonly loopStart: number
  readonly repeatedChars: number
  /** Offset in the side's text just after the character that completed the evidence. */
  readonly verifiedAt: number
}
