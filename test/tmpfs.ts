// A small file system of its own (tmpfs), to fill up: for the disk-full test and fault scenario. Mounting needs
// root (or CAP_SYS_ADMIN); `mountTmpfs` says why when it cannot.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export interface Tmpfs {
  dir: string;
  /** Writes a file until the file system has no space left. */
  fill: () => void;
  /** Removes what `fill` wrote. */
  free: () => void;
  unmount: () => void;
}

/** A tmpfs of `sizeMb` on a new directory, or the reason it cannot be mounted here. */
export function mountTmpfs(sizeMb: number): Tmpfs | string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-tmpfs-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeMb}m,mode=0700`, "tmpfs", dir], {
      stdio: "pipe",
    });
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    return `cannot mount a tmpfs (${String((error as { stderr?: Buffer }).stderr ?? error).trim()})`;
  }
  const filler = path.join(dir, "filler");
  return {
    dir,
    fill: () => {
      const fd = fs.openSync(filler, "a");
      const chunk = Buffer.alloc(64 * 1024, 1);
      try {
        for (;;) fs.writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
        // The last few bytes: a chunk no longer fits, smaller writes still might.
        try {
          for (;;) fs.writeSync(fd, Buffer.alloc(512, 1));
        } catch {}
      } finally {
        fs.closeSync(fd);
      }
    },
    free: () => fs.rmSync(filler, { force: true }),
    unmount: () => {
      execFileSync("umount", ["-l", dir], { stdio: "pipe" });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
