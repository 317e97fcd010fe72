/** A lock file holding a process id, so two processes never write one resumable download. */
import { readFile, rm, writeFile } from 'node:fs/promises';
/** Takes `path` as a lock file holding our pid; `false` if a live process holds it (a dead one's is taken over). */
export async function lockFile(path) {
    for (let attempt = 0; attempt < 2; attempt++) {
        try {
            await writeFile(path, String(process.pid), { flag: 'wx' });
            return true;
        }
        catch (e) {
            if (e.code !== 'EEXIST')
                return false;
            const pid = Number((await readFile(path, 'utf8').catch(() => '')).trim());
            if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid))
                return false;
            await rm(path, { force: true }).catch(() => { });
        }
    }
    return false;
}
export function isAlive(pid) {
    try {
        process.kill(pid, 0);
        return true;
    }
    catch (e) {
        return e.code === 'EPERM';
    }
}
