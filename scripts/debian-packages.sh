# Sourced by the CI scripts that test against Debian's packages: `debian_packages NAME "WHAT" PACKAGE...` installs
# the packages when missing (needs root and apt-get) and makes sure the postgres OS user exists. Without root or
# apt-get a developer's run is skipped (exit 0), but CI fails: a skipped run there would hide a failure.
debian_packages() {
  local name=$1 what=$2
  shift 2
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    if [ "${CI:-}" = true ]; then
      echo "$name: needs root and apt-get to install $what, and CI must run it" >&2
      exit 1
    fi
    echo "$name: needs root and apt-get to install $what; skipped outside CI"
    exit 0
  fi
  if ! dpkg -s "$@" >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  fi
  id postgres >/dev/null 2>&1 || useradd -M -s /usr/sbin/nologin postgres
}
