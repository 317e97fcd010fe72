// Exit codes of the ragrank CLI (documented in docs/CLI.md):
//   0 success; 1 runtime error (bad file content, model failure, I/O); 2 usage (bad options, missing input path);
//   130 interrupted by Ctrl-C (nothing half-written is left).
export const EXIT = { OK: 0, RUNTIME: 1, USAGE: 2, INTERRUPTED: 130 }

/** An error the user can fix by changing the command line. */
export class UsageError extends Error {
  exitCode = EXIT.USAGE
}

/** An error in an input file, located at file:line so it can be found and fixed. */
export class InputError extends Error {
  exitCode = EXIT.RUNTIME
  constructor(file, line, message) {
    super(line ? `${file}:${line}: ${message}` : `${file}: ${message}`)
  }
}
