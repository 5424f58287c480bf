import { describe, expect, it } from 'vitest'
import { corpusDocuments, loadCorpus } from '../fixtures/detector/corpus.mjs'

// What the false-trip corpus holds (test/fixtures/detector/corpus.mjs); the trip checks themselves are
// test/detector/corpus-{reasoning,text,tool,tool-json}.test.ts, one side per file so they run in parallel.
const extension = (file: string) => file.replace(/^.*\/\.?/, '').replace(/^.*\.(?=[^./]+$)/, '')

describe('corpus of real normal text', () => {
  it('holds the project\'s node_modules: at least 2,000 files of at least 1,500 chars, of every kind', () => {
    const documents = loadCorpus()
    expect(new Set(documents.map((document) => document.file)).size).toBeGreaterThanOrEqual(2000)
    expect(documents.every((document) => document.text.length >= 1500)).toBe(true)
    const kinds = new Set(documents.map((document) => extension(document.file)))
    for (const kind of ['md', 'js', 'ts', 'json', 'yml', 'map', 'cjs', 'mjs', 'cc', 'h', 'css']) expect(kinds, kind).toContain(kind)
  })

  it('adds ~100 popular packages, over five times the project\'s own text: docs, sources, data, locales, lockfiles', () => {
    let projectChars = 0
    let cacheChars = 0
    const packages = new Set<string>()
    const kinds = new Set<string>()
    const paths: string[] = []
    for (const document of corpusDocuments()) {
      if (!document.file.startsWith('.cache/')) {
        projectChars += document.text.length
        continue
      }
      cacheChars += document.text.length
      if (document.part > 0) continue
      paths.push(document.file)
      kinds.add(extension(document.file))
      const match = /^\.cache\/corpus\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(document.file)
      if (match) packages.add(match[1])
    }
    expect(cacheChars).toBeGreaterThan(4 * projectChars)
    expect(packages.size).toBeGreaterThan(300)
    for (const kind of ['md', 'js', 'ts', 'json', 'css', 'scss', 'less', 'svg', 'csv', 'yml', 'html', 'txt', 'lock']) expect(kinds, kind).toContain(kind)
    const has = (pattern: RegExp) => paths.some((path) => pattern.test(path))
    expect(has(/node_modules\/\.package-lock\.json$/), 'npm lockfile').toBe(true)
    expect(has(/\/yarn\.lock$/), 'yarn lockfile').toBe(true)
    expect(has(/\/CHANGELOG\.md$/), 'changelogs').toBe(true)
    expect(has(/date-fns\/locale\/zh-CN\//), 'date-fns locales').toBe(true)
    expect(has(/moment\/locale\//), 'moment locales').toBe(true)
    expect(has(/cldr-numbers-modern\//), 'CLDR data').toBe(true)
    expect(has(/emojibase-data\/zh\//), 'emoji data').toBe(true)
    expect(has(/spdx-license-list\/licenses\//), 'licence texts').toBe(true)
    // Generated machine output is left out (see corpus.mjs): no source map, no file named minified.
    expect(has(/\.map$|\.min\.[cm]?(?:js|css)$/)).toBe(false)
  }, 300_000)
})
