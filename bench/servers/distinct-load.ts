// Bench child: autocannon through its API with a different query on every request (q=bench-<n>), printing
// the same JSON as `autocannon -j`. The CLI cannot do it: its argument parser reads "[<id>]" in a URL as a
// sub-argument list.
//   node bench/servers/distinct-load.ts <connections> <pipelining> <seconds> <url-without-query> <parameter>
import autocannon from "autocannon";

const [connections, pipelining, seconds, url, parameter] = process.argv.slice(2);
if (!url || !parameter)
  throw new Error("usage: distinct-load.ts <connections> <pipelining> <seconds> <url> <parameter>");
const base = new URL(url);
let n = 0;
const result = await autocannon({
  url: base.origin,
  connections: Number(connections),
  pipelining: Number(pipelining),
  duration: Number(seconds),
  requests: [
    {
      method: "GET",
      setupRequest: (request) => ({ ...request, path: `${base.pathname}?${parameter}=bench-${n++}` }),
    },
  ],
});
process.stdout.write(`${JSON.stringify(result)}\n`);
