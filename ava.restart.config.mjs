// `npm run test:engines-restart`: the real engine restarts, run alone (see __test__/engines/restart.serial.mjs).
export default { files: ['__test__/engines/restart.serial.mjs'], timeout: '4m', workerThreads: false }
