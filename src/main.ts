// Entry point (`node src/main.ts <command>`): the compile cache first, then the CLI (src/cli.ts) and all it loads.
import { enableCompileCache } from "./compile-cache.ts";

enableCompileCache();
await import("./cli.ts");
