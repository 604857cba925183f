#!/usr/bin/env bash
# CI: the Debian packages `npm run test:deploy` runs for real (nginx, Caddy, HAProxy, Apache, and podman with
# runc, debootstrap and slirp4netns for the container image), installed
# without starting their services: /usr/sbin/policy-rc.d exits 101 on this machine and is left so. Fast when
# they are already there. A package that cannot be installed is named in $TMPDIR/paycall-deploy-install.failed,
# where the deploy tests read it: they then skip that proxy with a message instead of failing.
set -uo pipefail

failed_file="${TMPDIR:-/tmp}/paycall-deploy-install.failed"
rm -f "$failed_file"

# Prints the packages whose binary is not installed (package:binary).
missing_packages() {
  local entry
  for entry in nginx:nginx caddy:caddy haproxy:haproxy apache2:apache2 podman:podman runc:runc \
    debootstrap:debootstrap slirp4netns:slirp4netns fuse-overlayfs:fuse-overlayfs uidmap:newuidmap; do
    PATH="$PATH:/usr/sbin:/sbin" command -v "${entry#*:}" >/dev/null 2>&1 || echo "${entry%%:*}"
  done
}

mapfile -t missing < <(missing_packages)
if [ "${#missing[@]}" -eq 0 ]; then
  echo "deploy test packages already installed"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "warning: no apt-get; cannot install ${missing[*]}" >&2
  printf '%s\n' "${missing[@]}" >"$failed_file"
  exit 0
fi

# Installing must not start the servers (they would take ports 80 and 443). Where no policy-rc.d forbids it,
# one is put in place for the install and removed after; an existing one is left as it is.
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
  trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi

install() {
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@"
}
echo "installing ${missing[*]}"
if ! install "${missing[@]}"; then
  apt-get update && install "${missing[@]}"
fi

mapfile -t still_missing < <(missing_packages)
if [ "${#still_missing[@]}" -gt 0 ]; then
  echo "warning: could not install ${still_missing[*]}; the deploy tests will skip them" >&2
  printf '%s\n' "${still_missing[@]}" >"$failed_file"
fi
exit 0
