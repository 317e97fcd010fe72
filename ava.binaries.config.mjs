// The release workflow's per-platform binary tests: every spec but those that talk to the engines
// (the ones importing __test__/engines/env.mjs). They need the servers of
// scripts/engines.sh (Linux) and run, with everything else, in the workflow's gate job (`bash .ci/run`).
export default {
  files: [
    '__test__/**/*.spec.mjs',
    '!__test__/engines/{cli,elasticsearch,faults,opensearch,pgvector}.spec.mjs',
  ],
  timeout: '2m',
  workerThreads: false,
}
