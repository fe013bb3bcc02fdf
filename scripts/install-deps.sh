#!/usr/bin/env bash
# install-deps.sh installs the system packages Sked needs on Debian or
# Ubuntu, and only those that are missing:
#   run   PostgreSQL server binaries (for the embedded database)
#   test  the same plus Chromium (for the browser tests) and PgBouncer (for
#         the tests behind a pooler in transaction mode)
# Elsewhere it says what to install by hand and fails.
set -euo pipefail

want=${1:-run}
missing=()

have_postgres() {
  command -v initdb >/dev/null 2>&1 && return 0
  compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null
}

have_postgres || missing+=(postgresql)
if [ "$want" = test ]; then
  command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || missing+=(chromium)
  command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ] || missing+=(pgbouncer)
fi

# The Terraform provider's acceptance tests (clients/terraform) run the
# terraform CLI, which is no Debian package: say so here; the tests fail.
if [ "$want" = test ] && [ -z "${TF_ACC_TERRAFORM_PATH:-}" ] && ! command -v terraform >/dev/null 2>&1; then
  echo "install-deps: terraform (1.x) is missing: the tests of clients/terraform will fail." >&2
  echo "install-deps: install it from HashiCorp's releases or apt repository onto PATH, or set TF_ACC_TERRAFORM_PATH" >&2
fi

[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: please install ${missing[*]} with your package manager" >&2
  echo "install-deps: (or set SKED_DATABASE_URL to use an existing PostgreSQL)" >&2
  exit 1
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo=(sudo); else
    echo "install-deps: run as root or install sudo to install: ${missing[*]}" >&2
    exit 1
  fi
fi

echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# Sked runs its own clusters: keep the package from creating and starting
# a system-wide one.
if [[ " ${missing[*]} " == *" postgresql "* ]]; then
  "${sudo[@]}" mkdir -p /etc/postgresql-common/createcluster.d
  echo "create_main_cluster = false" | "${sudo[@]}" tee /etc/postgresql-common/createcluster.d/sked.conf >/dev/null
fi
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# The tests start their own PgBouncer: stop and disable the service the
# package may have started (on port 6432).
if [[ " ${missing[*]} " == *" pgbouncer "* ]]; then
  if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
    "${sudo[@]}" systemctl disable --now pgbouncer >/dev/null 2>&1 || true
  elif command -v service >/dev/null 2>&1; then
    "${sudo[@]}" service pgbouncer stop >/dev/null 2>&1 || true
  fi
fi
echo "install-deps: done" >&2
