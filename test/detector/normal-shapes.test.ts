import { describe, expect, it } from 'vitest'
import { NORMAL_SHAPES } from '../fixtures/detector/normal-shapes.mjs'
import { feed } from './feed.ts'

describe('adversarial normal shapes', () => {
  for (const { name, text } of NORMAL_SHAPES) {
    it(`never trips on ${name}, on any side`, () => {
      for (const side of ['reasoning', 'text', 'tool'] as const) {
        for (const seed of [1, 2, 3]) expect(feed(text, side, { seed }), `${side} seed ${seed}`).toBeUndefined()
      }
    })
  }
})
