import { describe, expect, it } from 'vitest'
import * as detector from '../../src/detector/index.ts'
import { DEFAULT_CONFIG } from '../../src/detector/index.ts'
import { SessionReplay } from '../../src/session/replay.ts'
import type { SessionCall } from '../../src/session/types.ts'

/** A finished call holding long, ever-new reasoning and no output: the reasoning-only stall shape. */
function reasoningOnlyCall(turn: number): SessionCall {
  let reasoning = ''
  for (let i = 0; reasoning.length < DEFAULT_CONFIG.minReasoningChars + 500; i++) {
    reasoning += `Turn ${turn} thought ${i}: weigh option ${(i * 7919 + turn * 104729) % 100003} against ${(i * 31 + turn) % 977}.\n`
  }
  return {
    turn, step: 1, attempt: 1, deltas: [{ side: 'reasoning', text: reasoning }],
    reasoningChars: reasoning.length, textChars: 0, toolCalls: [], finish: { kind: 'stop' } as any,
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
