import { describe, expect, it } from 'vitest'
import * as detector from '../../src/detector/index.ts'
import { DEFAULT_CONFIG } from '../../src/detector/index.ts'
import { SessionReplay } from '../../src/session/replay.ts'
import type { SessionCall } from '../../src/session/types.ts'
import { productiveProse } from '../fixtures/detector/loops.mjs'

/** A finished call holding long, ever-new reasoning and no output: the reasoning-only stall shape. */
function reasoningOnlyCall(turn: number): SessionCall {
  // Long reasoning that says something new in every sentence (a numbered template of one sentence is
  // the counter loop the in-call rules cut).
  const reasoning = productiveProse(DEFAULT_CONFIG.minReasoningChars + 500, 'en', turn * 31)
  return {
    turn, step: 1, attempt: 1, deltas: [{ side: 'reasoning', text: reasoning }],
    reasoningChars: reasoning.length, textChars: 0, toolChars: 0, toolCalls: [], finish: { kind: 'stop' } as any, trimmed: undefined, notices: [],
    hasMessage: true, recorded: [], previousResults: [],
  }
}

describe('SessionReplay', () => {
  // The live plugin carries its cross-call judge over user messages (at rc.8 a reasoning-only call ends
  // its turn, so stalled calls only line up across the user's "continue"); the replay must agree.
  it('counts reasoning-only calls across user messages, as the live plugin does', () => {
    const replay = new SessionReplay(detector as any)
    const verdicts = []
    for (let turn = 1; turn <= DEFAULT_CONFIG.maxThinkingSteps; turn++) {
      if (turn > 1) replay.userMessage()
      verdicts.push(replay.call(reasoningOnlyCall(turn)).stall)
    }
    expect(verdicts.slice(0, -1).every((stall) => stall === null)).toBe(true)
    expect(verdicts.at(-1)).toBe('reasoning-only')
  })
})
