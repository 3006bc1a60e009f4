#!/usr/bin/env bash
# Installs the named Debian packages when they are missing (idempotent), for test stacks
# that need system software (chromium, php-soap, python3-zeep, jaxws). Serialised with a
# lock so parallel test files do not fight over dpkg. Fails loudly when it cannot install.
set -euo pipefail
missing=()
for pkg in "$@"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "ensure-debian-packages: need root to install: ${missing[*]}" >&2
  exit 1
fi
exec 9>/tmp/scoop-apt.lock
flock 9
export DEBIAN_FRONTEND=noninteractive
# Another holder of the lock may have installed them meanwhile; apt-get is a no-op then.
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "ensure-debian-packages: installed ${missing[*]}" >&2
