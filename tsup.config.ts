import { defineConfig } from 'tsup'

// One self-contained file per entry (no shared chunks): lib/detector.js must carry
// no import at all, so it runs in a browser and in the analyzer without DSH installed.
export default defineConfig({
  entry: {
    detector: 'src/detector/index.ts',
    index: 'src/plugin/index.ts',
    retry: 'src/retry/index.ts',
    session: 'src/session/index.ts',
    invariant: 'src/invariant.ts',
  },
  format: ['esm'],
  target: 'es2022',
  platform: 'node',
  outDir: 'lib',
  dts: true,
  splitting: false,
  sourcemap: false,
  clean: true,
  external: [/^@deepseek-ai\//, 'fzstd', 'js-yaml', /^node:/],
})
