import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.node22.test.ts', 'node_modules/**'],
    setupFiles: ['dev/promise-with-resolvers.mjs'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
