import { describe, expect, it } from 'vitest'
import { NORMAL_SHAPES } from '../fixtures/detector/normal-shapes.mjs'
import { writeArguments } from '../fixtures/detector/loops.mjs'
import { feed } from './feed.ts'

const shape = (name: string) => NORMAL_SHAPES.find((entry) => entry.name === name)!.text

describe('tool-call arguments', () => {
  it('cuts a model writing the same line into a file thousands of times (JSON-escaped arguments)', () => {
    const args = writeArguments('notes.md', '# Notes\n' + '- [ ] check the configuration file again\n'.repeat(3000))
    const trip = feed(args, 'tool')
    expect(trip?.side).toBe('tool')
    expect(trip!.at).toBeLessThan(4000)
  })

  it('cuts a reshuffled pool of lines written into a file', () => {
    const lines = ['Go.', 'OK.', 'Writing.', 'Let me write the file.', 'Now.', 'Executing the plan.']
    let content = ''
    for (let i = 0; content.length < 60_000; i++) content += lines[(i * 7 + (i >> 3)) % lines.length] + '\n'
    const trip = feed(writeArguments('out.txt', content), 'tool')
    expect(trip?.side).toBe('tool')
  })

  it('lets CSV rows, generated tables, JSON arrays and zero-filled arrays through, raw or JSON-escaped', () => {
    for (const name of ['CSV rows', 'generated table', 'JSON array of similar objects', 'zero-filled array', 'hex dump', 'log with repeated lines']) {
      expect(feed(shape(name), 'tool'), name).toBeUndefined()
      expect(feed(writeArguments('data.txt', shape(name)), 'tool'), name).toBeUndefined()
    }
  })

  it('lets a file repeat a block a few times (fixtures)', () => {
    const block = 'describe("parser", () => {\n  it("parses", () => expect(parse("1 + 2")).toEqual(3))\n})\n'
    expect(feed(writeArguments('a.test.ts', block.repeat(12)), 'tool')).toBeUndefined()
  })
})
