import { defineConfig } from 'vitest/config';

// Two projects: tests beside each package (and of the fixture site), and end-to-end tests in
// test/e2e. Both share one fixture web site, started once per run by the global setup.
export default defineConfig({
  resolve: { conditions: ['development'] },
  ssr: { resolve: { conditions: ['development'] } },
  test: {
    globalSetup: ['./test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'packages',
          include: [
            'packages/*/test/**/*.test.ts',
            'packages/http/dashboard/test/**/*.test.ts',
            'test/fixture-site/**/*.test.ts',
            'test/house/**/*.test.ts',
          ],
        },
      },
      {
        extends: true,
        test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'] },
      },
    ],
  },
});
