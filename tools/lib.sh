# shellcheck shell=bash
# Shared by tools/stack.sh, tools/unstack.sh and tools/run-tests.sh:
# logging, Debian packages, the project venv, local services.
# Source it; it sets REPO, VENV, PYTHON and uses bash strict mode.

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV=${NOVA_MINI_VENV:-$REPO/.venv}
PYTHON=${NOVA_MINI_PYTHON:-python3}
export DEBIAN_FRONTEND=noninteractive
export PIP_DISABLE_PIP_VERSION_CHECK=1
# The steps that download are bounded, so that a stalled mirror stops the
# run with a message instead of holding it: apt-get and pip install as a
# whole (seconds), and each of pip's connections (its --timeout and
# --retries, as environment variables: the venvs nova_mini_deploy builds
# get them too).
APT_TIMEOUT=${NOVA_MINI_APT_TIMEOUT:-900}
PIP_INSTALL_TIMEOUT=${NOVA_MINI_PIP_TIMEOUT:-1200}
export PIP_TIMEOUT=${PIP_TIMEOUT:-${PIP_DEFAULT_TIMEOUT:-60}}
export PIP_RETRIES=${PIP_RETRIES:-5}

_T0=$SECONDS

log() { printf '[%4ds] %s\n' $((SECONDS - _T0)) "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
# expired STATUS: true if it is timeout(1)'s for a command it stopped.
expired() { [ "$1" -eq 124 ] || [ "$1" -eq 137 ]; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"
    elif command -v sudo >/dev/null; then sudo -n "$@"
    else die "need root for: $*"
    fi
}

port_open() {   # port_open PORT [HOST]
    (exec 3<>"/dev/tcp/${2:-127.0.0.1}/$1") 2>/dev/null
}

wait_port() {   # wait_port PORT SECONDS WHAT
    local deadline=$((SECONDS + $2))
    until port_open "$1"; do
        [ $SECONDS -lt $deadline ] || die "$3 does not listen on port $1 after $2 s"
        sleep 1
    done
}

# apt_ensure PKG...: install the Debian packages that are missing, with one
# 'apt-get update' first (only when something is missing).
apt_ensure() {
    local missing=() pkg
    for pkg in "$@"; do
        dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null \
            | grep -qx installed || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    command -v apt-get >/dev/null || die "missing packages (${missing[*]}) and no apt-get"
    log "apt-get install ${missing[*]}"
    local out rc=0 apt=(timeout -k 30 "$APT_TIMEOUT" apt-get -q
                        -o Acquire::http::Timeout=60 -o Acquire::Retries=3)
    out=$(mktemp)
    { as_root "${apt[@]}" update && as_root "${apt[@]}" install -y \
        --no-install-recommends "${missing[@]}"; } >"$out" 2>&1 </dev/null || rc=$?
    if [ $rc -ne 0 ]; then
        tail -n 30 "$out" >&2; rm -f "$out"
        expired $rc && die "apt-get stopped after ${APT_TIMEOUT} s" \
            "(a stalled mirror or a held dpkg lock?); NOVA_MINI_APT_TIMEOUT=SECONDS waits longer"
        die "apt-get install failed"
    fi
    rm -f "$out"
}

# pip_install PYTHON LOG PIP_ARGS...: PYTHON -m pip install PIP_ARGS in
# $REPO, its output in LOG, stopped after $PIP_INSTALL_TIMEOUT seconds;
# dies with the end of LOG if it fails.
pip_install() {
    local python=$1 out=$2 rc=0
    shift 2
    (cd "$REPO" && timeout -k 30 "$PIP_INSTALL_TIMEOUT" "$python" -m pip install "$@") \
        >"$out" 2>&1 </dev/null || rc=$?
    [ $rc -eq 0 ] && return 0
    grep -v 'is ignored: it is neither' "$out" | tail -n 30 >&2
    expired $rc && die "pip install stopped after ${PIP_INSTALL_TIMEOUT} s" \
        "(full log: $out); NOVA_MINI_PIP_TIMEOUT=SECONDS waits longer"
    die "pip install failed (full log: $out)"
}

# The build backend (setuptools, wheel, pbr) that pip installs to build
# the distributions of this tree (pbr, no pyproject.toml): within
# tools/constraints/build.txt, as the packaging test builds them.
BUILD_CONSTRAINTS=$REPO/tools/constraints/build.txt

# pip_install_tree PYTHON LOG PIP_ARGS...: pip_install of distributions of
# this tree, their build backend within $BUILD_CONSTRAINTS. Given as
# PIP_CONSTRAINT, which pip hands on to its isolated build environment
# and setup_requires' install (its -c reaches neither); the machine's own
# PIP_CONSTRAINT is kept. pip splits that variable at spaces: a path with
# spaces goes as a file: URL.
pip_install_tree() {
    local constraint=$BUILD_CONSTRAINTS
    case $constraint in
        *[[:space:]]*) constraint="file://${constraint// /%20}" ;;
    esac
    PIP_CONSTRAINT="${PIP_CONSTRAINT:+$PIP_CONSTRAINT }$constraint" \
        pip_install "$@"
}

# ensure_venv PIP_ARGS...: create $VENV if needed and pip install into it,
# skipped when the same arguments and requirement files were installed
# (those of the project and of each directory argument, such as the
# distributions of contrib/: their entry points are in their setup.cfg).
ensure_venv() {
    if [ ! -x "$VENV/bin/python" ]; then
        log "creating the venv $VENV"
        "$PYTHON" -m venv "$VENV" || die "python3 -m venv failed (apt-get install python3-venv)"
    fi
    local stamp want arg file files=()
    for arg in "$@"; do
        [ "$arg" = . ] && continue
        for file in setup.cfg requirements.txt; do
            [ -f "$REPO/$arg/$file" ] && files+=("$REPO/$arg/$file")
        done
    done
    stamp="$VENV/.nova_mini-installed-$(echo "$*" | sha256sum | cut -c1-12)"
    want=$( { echo "$REPO $*"; cat "$REPO/setup.cfg" "$REPO/requirements.txt" \
              "$REPO/test-requirements.txt" \
              "$REPO/doc/requirements.txt" "${files[@]}" 2>/dev/null; } |
        sha256sum | cut -d' ' -f1)
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
        log "venv $VENV is up to date"
        return 0
    fi
    log "pip install into $VENV (a few minutes the first time)"
    pip_install_tree "$VENV/bin/python" "$VENV/pip-install.log" "$@"
    echo "$want" >"$stamp"
}

# What tools/stack.sh installs into its venv: the project, its installer
# (contrib/nova-mini-deploy) and the sample vendordata service
# (contrib/sample-vendordata-service), distributions of their own beside
# nova_mini, and every client the commands it prints use: openstack
# (compute, image, identity) and its baremetal plugin (python-ironicclient).
# tools/run-tests.sh builds the quick start test's venv with the same
# arguments (ensure_venv's stamp: stack.sh then finds it up to date).
STACK_PIP_ARGS=(-e . -e ./contrib/nova-mini-deploy
                -e ./contrib/sample-vendordata-service
                python-openstackclient python-ironicclient)

# The deployment CLI (python -m nova_mini_deploy).
deploy() {
    (cd "$REPO" && "$VENV/bin/python" -m nova_mini_deploy "$@")
}

# Services that run as Debian packages: each start_* starts the service
# if it is installed but does not answer, and says "started" if it did.

start_postgresql() {
    port_open 5432 && return 0
    command -v pg_ctlcluster >/dev/null || return 0
    local dir
    for dir in /etc/postgresql/*/main; do
        [ -d "$dir" ] || continue
        dir=${dir%/main}
        log "starting PostgreSQL ${dir##*/}"
        as_root pg_ctlcluster --skip-systemctl-redirect "${dir##*/}" main start || true
    done
    wait_port 5432 60 PostgreSQL
    echo started
}

stop_postgresql() {
    local dir
    for dir in /etc/postgresql/*/main; do
        [ -d "$dir" ] || continue
        dir=${dir%/main}
        as_root pg_ctlcluster --skip-systemctl-redirect "${dir##*/}" main stop || true
    done
}

MEMCACHED_PID=/tmp/nova_mini-memcached.pid

start_memcached() {
    port_open 11211 && return 0
    command -v memcached >/dev/null || return 0
    log "starting memcached"
    local user=()
    [ "$(id -u)" -eq 0 ] && user=(-u memcache)
    memcached -d "${user[@]}" -l 127.0.0.1 -p 11211 -m 64 -P "$MEMCACHED_PID"
    wait_port 11211 30 memcached
    echo started
}

stop_memcached() {
    [ -f "$MEMCACHED_PID" ] || return 0
    local pid n=0; pid=$(cat "$MEMCACHED_PID")
    kill "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
    rm -f "$MEMCACHED_PID"
}

start_mariadb() {
    port_open 3306 && return 0
    [ -x /usr/sbin/mariadbd ] || return 0
    log "starting MariaDB"
    as_root install -d -o mysql -g mysql /run/mysqld
    as_root start-stop-daemon --start --oknodo --background \
        --exec /usr/sbin/mariadbd -- --user=mysql
    wait_port 3306 60 MariaDB
    echo started
}

stop_mariadb() {
    as_root start-stop-daemon --stop --oknodo --retry 30 --exec /usr/sbin/mariadbd >/dev/null || true
}

stop_rabbitmq() {
    as_root timeout 90 rabbitmqctl stop >/dev/null 2>&1 || true
}
