import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = new URL('../../', import.meta.url)
// An import or require statement, dynamic import, or a Node built-in reference.
const IMPORT = /(^|[;\s])import\s*(?:[\w*{]|\(|['"])|\brequire\s*\(|\bnode:|\bprocess\.|\bBuffer\b/m

describe('lib/detector.js is dependency-free', () => {
  it('imports nothing outside src/detector/ and uses no Node API in its source tree', () => {
    const dir = fileURLToPath(new URL('src/detector/', root))
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'))
    expect(files.length).toBeGreaterThan(20)
    for (const file of files) {
      const source = readFileSync(join(dir, file), 'utf8')
      for (const match of source.matchAll(/^import[^'"]*['"]([^'"]+)['"]/gm)) {
        expect(match[1], file).toMatch(/^\.\.?\/[\w./-]+\.ts$/)
        expect(relative(dir, resolve(dirname(join(dir, file)), match[1])), `${file} imports ${match[1]}`).not.toMatch(/^\.\./)
      }
      expect(source, file).not.toMatch(/\brequire\s*\(|\bnode:|\bprocess\.|\bBuffer\b|\bimport\s*\(/)
    }
  })

  it('keeps its wings below the root: rules, text and judges never import the stream detector, the side scanner or each other upward', () => {
    const dir = fileURLToPath(new URL('src/detector/', root))
    // text/ is the ground floor of the wings, rules/ and judges/ read it; the root files read the wings.
    const allowed: Record<string, string[]> = { text: ['text', '.'], rules: ['rules', 'text', '.'], judges: ['judges', 'text', '.'] }
    const rootFiles = new Set(['settings.ts', 'types.ts', 'finding.ts'])
    for (const wing of Object.keys(allowed)) {
      for (const file of readdirSync(join(dir, wing))) {
        const source = readFileSync(join(dir, wing, file), 'utf8')
        for (const match of source.matchAll(/^import[^'"]*['"]([^'"]+)['"]/gm)) {
          const target = relative(dir, resolve(join(dir, wing), match[1]))
          const targetWing = target.includes('/') ? target.split('/')[0] : '.'
          expect(allowed[wing], `${wing}/${file} imports ${target}`).toContain(targetWing)
          if (targetWing === '.') expect(rootFiles.has(target), `${wing}/${file} imports the root's ${target}`).toBe(true)
        }
      }
    }
  })

  it('has no import or require in the built bundle (npm test builds it first)', () => {
    const built = new URL('lib/detector.js', root)
    expect(existsSync(built), 'lib/detector.js is missing: run `npm run build`').toBe(true)
    expect(readFileSync(built, 'utf8')).not.toMatch(IMPORT)
  })
})
