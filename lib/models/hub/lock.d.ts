/** Takes `path` as a lock file holding our pid; `false` if a live process holds it (a dead one's is taken over). */
export declare function lockFile(path: string): Promise<boolean>;
export declare function isAlive(pid: number): boolean;
