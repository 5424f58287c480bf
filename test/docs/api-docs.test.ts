/**
 * Every export of the package's library entries carries a doc comment in the built declarations
 * (`lib/*.d.ts`, what an editor shows a user), and so does every public method and constructor of an
 * exported class: what it does, its parameters, what it returns, what it throws. Read with the
 * TypeScript checker, so a re-export is judged by the declaration it points at.
 */
import { describe, expect, it } from 'vitest'
import ts from 'typescript'

const ENTRIES = ['lib/detector.d.ts', 'lib/retry.d.ts', 'lib/session.d.ts', 'lib/index.d.ts', 'lib/invariant.d.ts']

function undocumented(): Record<string, string[]> {
  const program = ts.createProgram(ENTRIES, {
    strict: true, skipLibCheck: true, noEmit: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
  })
  const checker = program.getTypeChecker()
  const docOf = (symbol: ts.Symbol) => ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim()
  const result: Record<string, string[]> = {}
  for (const entry of ENTRIES) {
    const file = program.getSourceFile(entry)
    if (file === undefined) throw new Error(`${entry} is missing: run the build first`)
    const missing: string[] = []
    for (const exported of checker.getExportsOfModule(checker.getSymbolAtLocation(file)!)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported
      if (docOf(symbol) === '') missing.push(exported.name)
      if (!(symbol.flags & ts.SymbolFlags.Class)) continue
      const instance = checker.getDeclaredTypeOfSymbol(symbol)
      for (const member of instance.getProperties()) {
        const declaration = member.valueDeclaration
        if (declaration === undefined || !ts.isMethodDeclaration(declaration)) continue
        const modifiers = ts.getCombinedModifierFlags(declaration)
        if (modifiers & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected) || member.name.startsWith('#')) continue
        if (docOf(member) === '') missing.push(`${exported.name}.${member.name}`)
      }
      const constructors = symbol.members?.get('__constructor' as ts.__String)
      if (constructors !== undefined && docOf(constructors) === '') missing.push(`new ${exported.name}`)
    }
    result[entry] = missing
  }
  return result
}

describe('the public API documents itself', () => {
  it('has a doc comment on every export of lib/*.d.ts and on every public method of an exported class', () => {
    expect(undocumented()).toEqual(Object.fromEntries(ENTRIES.map((entry) => [entry, []])))
  })
})
