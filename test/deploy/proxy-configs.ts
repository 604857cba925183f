// The shipped deploy/ configs made runnable on loopback: each file as an operator installs it, with only its
// addresses, ports and certificate paths replaced (every replacement must find its text), wrapped in the least
// main configuration the server needs to run in the foreground from a temporary directory.
import fs from "node:fs";
import path from "node:path";
import { type Certificate, freePort, substitute } from "./proxy-servers.ts";

const DEPLOY = path.resolve(import.meta.dirname, "../../deploy");
const RUNNING_AS_ROOT = process.getuid?.() === 0;

export type ProxyKind = "nginx" | "caddy" | "haproxy" | "apache2";

export const PROXIES: Record<ProxyKind, { binary: string; debianPackage: string; shippedFile: string }> = {
  nginx: { binary: "nginx", debianPackage: "nginx", shippedFile: "nginx.conf" },
  caddy: { binary: "caddy", debianPackage: "caddy", shippedFile: "Caddyfile" },
  haproxy: { binary: "haproxy", debianPackage: "haproxy", shippedFile: "haproxy.cfg" },
  apache2: { binary: "apache2", debianPackage: "apache2", shippedFile: "apache.conf" },
};

export interface ProxySetup {
  argv: string[];
  env?: Record<string, string>;
  /** Where buyers reach paycall through the proxy (https where the shipped file terminates TLS). */
  url: string;
  /** The plain-HTTP listener that redirects to https, where the shipped file has one. */
  redirectUrl?: string;
}

export interface SetupContext {
  binary: string;
  dir: string;
  servicePort: number;
  cert: Certificate;
}

function shipped(kind: ProxyKind): string {
  return fs.readFileSync(path.join(DEPLOY, PROXIES[kind].shippedFile), "utf8");
}

function write(dir: string, name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

/** nginx's main file around one site file, as nginx.conf's http block includes sites-enabled. */
function nginxMain(ctx: SetupContext, siteFile: string): string[] {
  const temp = (name: string) => path.join(ctx.dir, name);
  const main = write(
    ctx.dir,
    "nginx-main.conf",
    [
      "daemon off;",
      // One process as the test's user: no worker switching to www-data, which could not read the temp dir.
      "master_process off;",
      `pid ${temp("nginx.pid")};`,
      "error_log stderr warn;",
      "events { worker_connections 256; }",
      "http {",
      "  access_log off;",
      `  client_body_temp_path ${temp("client-body")};`,
      `  proxy_temp_path ${temp("proxy")};`,
      `  fastcgi_temp_path ${temp("fastcgi")};`,
      `  uwsgi_temp_path ${temp("uwsgi")};`,
      `  scgi_temp_path ${temp("scgi")};`,
      `  include ${siteFile};`,
      "}",
      "",
    ].join("\n"),
  );
  return [ctx.binary, "-p", ctx.dir, "-e", "stderr", "-c", main];
}

/** nginx as Debian installs it, with the smallest site that proxies to paycall: no buffer settings at all. */
export async function defaultNginx(ctx: SetupContext): Promise<ProxySetup> {
  const port = await freePort();
  const site = write(
    ctx.dir,
    "default-site.conf",
    `server {\n  listen 127.0.0.1:${port};\n  location / {\n    proxy_pass http://127.0.0.1:${ctx.servicePort};\n  }\n}\n`,
  );
  return { argv: nginxMain(ctx, site), url: `http://127.0.0.1:${port}` };
}

async function shippedNginx(ctx: SetupContext): Promise<ProxySetup> {
  const [port, redirectPort] = [await freePort(), await freePort()];
  const site = substitute(
    shipped("nginx"),
    [
      ["listen 443 ssl http2;", `listen 127.0.0.1:${port} ssl http2;`],
      ["listen [::]:443 ssl http2;", ""],
      ["listen 80;", `listen 127.0.0.1:${redirectPort};`],
      ["listen [::]:80;", ""],
      ["/etc/letsencrypt/live/api.example.com/fullchain.pem", ctx.cert.certFile],
      ["/etc/letsencrypt/live/api.example.com/privkey.pem", ctx.cert.keyFile],
      ["server 127.0.0.1:4021;", `server 127.0.0.1:${ctx.servicePort};`],
    ],
    "deploy/nginx.conf",
  );
  return {
    argv: nginxMain(ctx, write(ctx.dir, "paycall-site.conf", site)),
    url: `https://127.0.0.1:${port}`,
    redirectUrl: `http://127.0.0.1:${redirectPort}`,
  };
}

async function shippedCaddy(ctx: SetupContext): Promise<ProxySetup> {
  const port = await freePort();
  const site = substitute(
    shipped("caddy"),
    [
      [":80 {", `http://127.0.0.1:${port} {`],
      ["api-1:4021 api-2:4021", `127.0.0.1:${ctx.servicePort}`],
    ],
    "deploy/Caddyfile",
  );
  // The admin API would listen on the fixed port 2019; the test has no use for it.
  const file = write(ctx.dir, "Caddyfile", `{\n\tadmin off\n}\n\n${site}`);
  return {
    argv: [ctx.binary, "run", "--config", file, "--adapter", "caddyfile"],
    env: { HOME: ctx.dir, XDG_DATA_HOME: ctx.dir, XDG_CONFIG_HOME: ctx.dir },
    url: `http://127.0.0.1:${port}`,
  };
}

async function shippedHaproxy(ctx: SetupContext): Promise<ProxySetup> {
  const [port, redirectPort] = [await freePort(), await freePort()];
  let config = substitute(
    shipped("haproxy"),
    [
      ["bind :80", `bind 127.0.0.1:${redirectPort}`],
      [
        "bind :443 ssl crt /etc/haproxy/certs/api.example.com.pem",
        `bind 127.0.0.1:${port} ssl crt ${ctx.cert.pemFile}`,
      ],
      ["server paycall 127.0.0.1:4021", `server paycall 127.0.0.1:${ctx.servicePort}`],
    ],
    "deploy/haproxy.cfg",
  );
  // Only root may chroot and change user; run unprivileged, the test keeps everything else.
  if (!RUNNING_AS_ROOT) config = config.replace(/^\s*(chroot|user|group) .*$/gm, "");
  return {
    argv: [ctx.binary, "-db", "-f", write(ctx.dir, "haproxy.cfg", config)],
    url: `https://127.0.0.1:${port}`,
    redirectUrl: `http://127.0.0.1:${redirectPort}`,
  };
}

const APACHE_MODULES = [
  "mpm_event",
  "authz_core",
  "alias",
  "proxy",
  "proxy_http",
  "headers",
  "ssl",
  "socache_shmcb",
];

async function shippedApache(ctx: SetupContext): Promise<ProxySetup> {
  const [port, redirectPort] = [await freePort(), await freePort()];
  const site = substitute(
    shipped("apache2"),
    [
      ["<VirtualHost *:80>", `<VirtualHost 127.0.0.1:${redirectPort}>`],
      ["<VirtualHost *:443>", `<VirtualHost 127.0.0.1:${port}>`],
      ["/etc/letsencrypt/live/api.example.com/fullchain.pem", ctx.cert.certFile],
      ["/etc/letsencrypt/live/api.example.com/privkey.pem", ctx.cert.keyFile],
      ["http://127.0.0.1:4021/", `http://127.0.0.1:${ctx.servicePort}/`],
    ],
    "deploy/apache.conf",
  );
  const main = write(
    ctx.dir,
    "apache2.conf",
    [
      `ServerRoot ${ctx.dir}`,
      "ServerName 127.0.0.1",
      `PidFile ${path.join(ctx.dir, "apache2.pid")}`,
      `DefaultRuntimeDir ${ctx.dir}`,
      `Mutex file:${ctx.dir} default`,
      "ErrorLog /dev/stderr",
      "LogLevel warn",
      ...APACHE_MODULES.map((m) => `LoadModule ${m}_module /usr/lib/apache2/modules/mod_${m}.so`),
      ...(RUNNING_AS_ROOT ? ["User nobody", "Group nogroup"] : []),
      `Listen 127.0.0.1:${port}`,
      `Listen 127.0.0.1:${redirectPort}`,
      `Include ${write(ctx.dir, "paycall.conf", site)}`,
      "",
    ].join("\n"),
  );
  return {
    argv: [ctx.binary, "-DFOREGROUND", "-f", main],
    url: `https://127.0.0.1:${port}`,
    redirectUrl: `http://127.0.0.1:${redirectPort}`,
  };
}

export const SHIPPED: Record<ProxyKind, (ctx: SetupContext) => Promise<ProxySetup>> = {
  nginx: shippedNginx,
  caddy: shippedCaddy,
  haproxy: shippedHaproxy,
  apache2: shippedApache,
};
