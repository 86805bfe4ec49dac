import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'bench/**/*.test.ts'],
    // Native addons (re2) and child servers behave best in forked workers.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
