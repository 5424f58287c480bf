import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const root = new URL('../../', import.meta.url)
// An import or require statement, dynamic import, or a Node built-in reference.
const IMPORT = /(^|[;\s])import\s*(?:[\w*{]|\(|['"])|\brequire\s*\(|\bnode:|\bprocess\.|\bBuffer\b/m

describe('lib/detector.js is dependency-free', () => {
  it('imports nothing and uses no Node API in its source tree', () => {
    const dir = new URL('src/detector/', root)
    for (const file of readdirSync(dir)) {
      const source = readFileSync(new URL(file, dir), 'utf8')
      for (const match of source.matchAll(/^import[^'"]*['"]([^'"]+)['"]/gm)) expect(match[1], file).toMatch(/^\.\/[\w-]+\.ts$/)
      expect(source, file).not.toMatch(/\brequire\s*\(|\bnode:|\bprocess\.|\bBuffer\b|\bimport\s*\(/)
    }
  })

  it('has no import or require in the built bundle (npm test builds it first)', () => {
    const built = new URL('lib/detector.js', root)
    expect(existsSync(built), 'lib/detector.js is missing: run `npm run build`').toBe(true)
    expect(readFileSync(built, 'utf8')).not.toMatch(IMPORT)
  })
})
