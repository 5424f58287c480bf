import { defineConfig } from 'vitest/config'

// The detector over its calibration corpora: the npm corpus read as each side (it installs ~100 pinned
// packages into .cache/corpus on first use) and the real model output (test/fixtures/real-output).
export default defineConfig({
  test: {
    include: ['test/detector/corpus*.test.ts'],
    setupFiles: ['dev/promise-with-resolvers.mjs'],
    // CPU-bound passes, one per side: one worker per core (one worker alone ran them in 440 s).
    pool: 'threads',
    maxWorkers: 2,
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
})
