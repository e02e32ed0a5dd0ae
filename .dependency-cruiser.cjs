/** The layering of DESIGN.md 2, checked on every import by `npm run lint:imports` (part of `npm test`). It reads
 * the build in dist/: an import of types only is gone there, so a layer may name another's types freely. */
const SERVICES_PAST_CONTEXT =
  '^dist/kernel/io/(git[^/]*|fault|test-timing|atomic-file|lane-dir|launch-intents|tools|trackers/[^/]+|' +
  'notify-config-file|http-post|run-command|config|process)\\.js$'

module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'kernel/domain holds the rules: no Node module, nothing outside the rulebook but valibot.',
      severity: 'error',
      from: { path: '^dist/kernel/domain/' },
      to: { pathNot: ['^dist/kernel/domain/', '(^|/)node_modules/valibot/'] },
    },
    {
      name: 'services-reach-the-outside-through-their-context',
      comment: 'A service gets files, git, processes, the clock and test hooks through ctx.io (kernel/io/adapters.ts).',
      severity: 'error',
      from: { path: '^dist/kernel/services/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'one-process-boundary',
      comment: 'Every program is started by kernel/io/process.ts, from an argument array and never through a shell.',
      severity: 'error',
      // The host runner's bundle is its modules joined, each checked here on its own.
      from: {
        path: '^dist/(cli|kernel|handlers)/',
        pathNot: ['^dist/kernel/io/process\\.js$', '^dist/kernel/runner/host-runner\\.mjs$'],
      },
      to: { dependencyTypes: ['core'], path: '^(node:)?child_process$' },
    },
    {
      name: 'services-use-no-adapter-directly',
      comment: 'Only types may be taken from the adapters that ctx.io wraps.',
      severity: 'error',
      from: { path: '^dist/kernel/services/' },
      to: { path: SERVICES_PAST_CONTEXT },
    },
    {
      name: 'handlers-import-hono-valibot-and-the-contract',
      comment: 'handlers/ also runs on workerd: hono, valibot, the port and the rulebook, and nothing with I/O.',
      severity: 'error',
      from: { path: '^dist/handlers/' },
      to: {
        pathNot: [
          '^dist/handlers/',
          '^dist/kernel/port/',
          '^dist/kernel/domain/',
          '(^|/)node_modules/(hono|valibot)/',
          '^hono/',
        ],
      },
    },
    {
      name: 'product-imports-no-test-code',
      comment: 'What ships (cli/, kernel/, handlers/) imports nothing from fixtures/ or test/.',
      severity: 'error',
      from: { path: '^dist/(cli|kernel|handlers)/' },
      to: { path: '^dist/(fixtures|test)/' },
    },
    {
      name: 'kernel-does-not-import-the-cli',
      severity: 'error',
      from: { path: '^dist/kernel/' },
      to: { path: '^dist/cli/' },
    },
    {
      name: 'only-the-server-mounts-the-handlers',
      severity: 'error',
      from: { path: '^dist/kernel/', pathNot: '^dist/kernel/server/' },
      to: { path: '^dist/handlers/' },
    },
    {
      name: 'the-host-runner-ships-alone',
      comment:
        'The host runner is shipped to a host as one file: it takes the rulebook and the adapters, ' +
        'nothing of the kernel.',
      severity: 'error',
      from: { path: '^dist/kernel/runner/(host-runner|host/)' },
      to: { path: '^dist/(kernel/(services|server|port)|cli|handlers)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    moduleSystems: ['es6'],
  },
}
