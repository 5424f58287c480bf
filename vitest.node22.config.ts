import { defineConfig } from 'vitest/config'

// Tests that load dsh-session-persistence-jsonl (node:zlib zstd, Node >= 22.15).
export default defineConfig({
  test: {
    include: ['test/**/*.node22.test.ts'],
    setupFiles: ['dev/promise-with-resolvers.mjs'],
    globalSetup: ['test/support/dsh-home.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})
