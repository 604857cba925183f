// What paycall writes to disk holds payer addresses, paid answers and the receipt signing key: readable by its
// own user only. Directories it creates are 0700, its store files 0600 (SQLite gives its -wal and -shm files
// the database file's mode). A directory that already existed is tightened only when it is paycall's own
// DATA_DIR (never a shared parent such as /tmp).
import fs from "node:fs";

const PRIVATE_DIR_MODE = 0o700;
const PRIVATE_FILE_MODE = 0o600;

/** Creates `dir` (and missing parents) as 0700; `own`: it is paycall's DATA_DIR, tightened if it existed. */
export function ensurePrivateDir(dir: string, own: boolean): void {
  const existed = fs.existsSync(dir);
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (existed && !own) return;
  try {
    if ((fs.statSync(dir).mode & 0o777) !== PRIVATE_DIR_MODE) fs.chmodSync(dir, PRIVATE_DIR_MODE);
  } catch {
    // Not ours to change (another owner, a read-only mount): the files inside are 0600 still.
  }
}

/** Creates `file` as 0600 when missing, and tightens it and its SQLite companions when they exist. */
export function ensurePrivateFile(file: string): void {
  fs.closeSync(fs.openSync(file, "a", PRIVATE_FILE_MODE));
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) {
    try {
      if ((fs.statSync(f).mode & 0o777) !== PRIVATE_FILE_MODE) fs.chmodSync(f, PRIVATE_FILE_MODE);
    } catch {
      // absent (no WAL yet) or not ours
    }
  }
}
