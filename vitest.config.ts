import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The corpus passes (every npm-corpus document and every real model output through the detector,
    // several minutes) are `npm run test:corpus` (vitest.corpus.config.ts); the Node-22 tests are
    // `npm run test:node22`.
    exclude: ['test/**/*.node22.test.ts', 'test/detector/corpus*.test.ts', 'node_modules/**'],
    setupFiles: ['dev/promise-with-resolvers.mjs'],
    globalSetup: ['test/support/dsh-home.ts'],
    // Many files wait on child processes, sockets and timers (the CLI tools, the retry server, the agent
    // loop), so two workers left the two cores of a CI machine half idle: 171 s with forked workers, 134 s
    // with threads, about 60 s with four threads.
    pool: 'threads',
    maxWorkers: 4,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
