#!/usr/bin/env bash
# Run every test of nova_mini (unit and live) on this machine.
#
# Installs what the tests need (Debian packages, the project and
# test-requirements.txt into $NOVA_MINI_VENV, default .venv), starts the
# services that are installed but stopped (RabbitMQ, PostgreSQL, MariaDB,
# memcached; stopped again at the end unless NOVA_MINI_KEEP_SERVICES=1),
# then runs pytest and, when given no arguments, tools/run-checks.sh (flake8,
# bashate, the generated samples, docs and release notes). Extra arguments
# go to pytest (and skip the checks), e.g.
#     tools/run-tests.sh -m live -x
# Exit status: pytest's, except that "no tests collected" (5) is a failure.
set -euo pipefail
# The tests get a venv of their own (default .venv-tests): it also holds the
# sample plugins of contrib/ (extra specs, vendordata), which a deployment's
# venv must not.
NOVA_MINI_VENV=${NOVA_MINI_VENV:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.venv-tests}
export NOVA_MINI_VENV
# shellcheck source=tools/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# pytest's temporary files, the live stack's configs and logs: kept when
# tests fail, removed when they pass.
TEST_TMP=${NOVA_MINI_TEST_TMP:-$(mktemp -d "${TMPDIR:-/tmp}/nova_mini-tests.XXXXXX")}
TEST_TIMEOUT=${NOVA_MINI_TEST_TIMEOUT:-4800}
STARTED=()

# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
    rmdir "$TEST_TMP" 2>/dev/null || true     # if nothing ran
    [ "${NOVA_MINI_KEEP_SERVICES:-0}" = 1 ] && return 0
    local svc
    for svc in "${STARTED[@]}"; do
        log "stopping $svc (started by this run)"
        "stop_$svc"
    done
}
trap cleanup EXIT

log "nova_mini tests: repo $REPO, venv $VENV"

# The whole suite (nova_mini's tests and those of the installer and of the
# sample vendordata service, in their distributions) unless the arguments
# name test files or directories.
paths=(nova_mini/tests
    contrib/nova-mini-deploy/nova_mini_deploy/tests
    contrib/sample-vendordata-service/nova_mini_vendordata_sample/tests)
for arg in "$@"; do
    if [ -e "$REPO/${arg%%::*}" ]; then paths=(); break; fi
done

# 1. Debian packages: the services the tests talk to, what pip may need
#    to build wheels, systemd-analyze (the unit files' tests) and sudo
#    (the installer's as_root for users other than root: its tests).
apt_ensure python3-venv python3-dev build-essential libpq-dev libffi-dev \
    libssl-dev rabbitmq-server postgresql memcached mariadb-server \
    cloud-init haproxy systemd sudo

# 2. The project, its test requirements, the sample operator plugins
#    that the extra-spec and vendordata plugin tests load, and, editable
#    (their tests run from the checkout), the installer that deploys the
#    live tests' stack and the sample vendordata service it runs.
pip_args=(-e . -r test-requirements.txt ./contrib/sample-extra-spec-plugin
          ./contrib/sample-vendordata-plugin -e ./contrib/nova-mini-deploy
          -e ./contrib/sample-vendordata-service)
ensure_venv "${pip_args[@]}"

# The quick start's test (tests/live/test_quickstart.py) runs tools/stack.sh
# with the venv quickstart-venv of the harness cache: stack.sh's own
# install (ensure_venv with its STACK_PIP_ARGS, 1-2 minutes on a fresh
# machine) runs here, in the background, beside the steps below, which
# leave a core idle; the test's stack.sh then finds that venv up to date.
quickstart_pid=
if [ ${#paths[@]} -gt 0 ]; then
    quickstart_venv=$("$VENV/bin/python" -c 'import os
from nova_mini_deploy import venvs
print(os.path.join(venvs.cache_dir(), "quickstart-venv"))') \
        || die "no harness cache directory"
    quickstart_log=$(mktemp "${TMPDIR:-/tmp}/nova_mini-quickstart-venv.XXXXXX")
    log "the quick start's venv $quickstart_venv: in the background"
    (VENV=$quickstart_venv; ensure_venv "${STACK_PIP_ARGS[@]}") \
        >"$quickstart_log" 2>&1 </dev/null &
    quickstart_pid=$!
fi

# 3. Services.
start_service() {    # start_service NAME COMMAND...: run it, note if it started
    local out
    out=$("${@:2}") || die "could not start $1"
    if [ "$out" = started ]; then STARTED+=("$1"); fi
}
start_service rabbitmq deploy ensure-rabbitmq
log "RabbitMQ answers on 127.0.0.1:5672"
start_service postgresql start_postgresql
start_service mariadb start_mariadb
# The database tests create their MariaDB databases as root over TCP
# (tests/fixtures/database.py). Debian's root logs in only through the
# socket: then they get a user of their own.
if command -v mariadb >/dev/null && [ -z "${NOVA_MINI_TEST_MYSQL_URL:-}" ] &&
        ! mariadb -h 127.0.0.1 -u root -e 'SELECT 1' >/dev/null 2>&1; then
    log "MariaDB: creating user nova_mini_test for the database tests"
    sql=""
    for host in 127.0.0.1 localhost; do
        sql+="CREATE USER IF NOT EXISTS 'nova_mini_test'@'$host' IDENTIFIED BY 'nova_mini_test'; "
        sql+="GRANT ALL PRIVILEGES ON *.* TO 'nova_mini_test'@'$host'; "
    done
    as_root mariadb -e "$sql" || die "could not create the MariaDB test user"
    export NOVA_MINI_TEST_MYSQL_URL=mysql+pymysql://nova_mini_test:nova_mini_test@127.0.0.1:3306/
fi
start_service memcached start_memcached
venv_path=$(deploy ensure-keystone-venv) || die "could not build the Keystone venv"
log "Keystone venv: $venv_path"
venv_path=$(deploy ensure-glance-venv) || die "could not build the Glance venv"
log "Glance venv: $venv_path"
# The Redfish emulator (sushy-tools) of the redfish hardware type's live
# tests, pinned by tools/constraints/sushy-tools.txt.
venv_path=$(deploy ensure-sushy-tools-venv) || die "could not build the sushy-tools venv"
log "sushy-tools venv: $venv_path"
# Tempest (the live test of its compute version tests) in a scratch venv
# of its own, built once: never in the test venv.
# With ironic-tempest-plugin (the live test of its node, chassis and port
# tests); every release pinned by tools/constraints/tempest.txt, rebuilt
# when that file changes.
export NOVA_MINI_TEMPEST_VENV=${NOVA_MINI_TEMPEST_VENV:-$HOME/.cache/nova_mini/tempest-venv}
tempest_pins=$REPO/tools/constraints/tempest.txt
tempest_stamp=$NOVA_MINI_TEMPEST_VENV/.nova_mini-c$(sha256sum <"$tempest_pins" | cut -c1-12)
if [ ! -x "$NOVA_MINI_TEMPEST_VENV/bin/tempest" ] || [ ! -f "$tempest_stamp" ]; then
    log "building the Tempest venv in $NOVA_MINI_TEMPEST_VENV"
    rm -rf "$NOVA_MINI_TEMPEST_VENV"
    python3 -m venv "$NOVA_MINI_TEMPEST_VENV" || die "could not create the Tempest venv"
    pip_install "$NOVA_MINI_TEMPEST_VENV/bin/python" "$NOVA_MINI_TEMPEST_VENV/pip-install.log" \
        -c "$tempest_pins" tempest==47.0.0 ironic-tempest-plugin==3.2.0
    touch "$tempest_stamp"
fi
# nova_mini's own plugin, this checkout's, on every run: copied in (not
# linked, so that no run depends on another checkout's files), so every
# Tempest run of the suite loads the same plugin.
log "installing contrib/tempest-plugin into $NOVA_MINI_TEMPEST_VENV"
pip_install_tree "$NOVA_MINI_TEMPEST_VENV/bin/python" "$NOVA_MINI_TEMPEST_VENV/pip-install.log" \
    --no-deps --force-reinstall "$REPO/contrib/tempest-plugin"

if [ -n "$quickstart_pid" ]; then
    if ! wait "$quickstart_pid"; then
        cat "$quickstart_log" >&2
        die "could not build the quick start's venv $quickstart_venv"
    fi
    rm -f "$quickstart_log"
    log "the quick start's venv is ready"
fi

# 4. The tests.
log "pytest (temporary files and live stack logs under $TEST_TMP)"
# The whole suite runs in two processes (pytest-xdist; the work units are
# set in nova_mini/tests/conftest.py): the live tests but Tempest's in
# order in one (they load the cores themselves: Keystone, the daemons), the
# in-process tests in the other, a module at a time, then the Tempest runs.
# NOVA_MINI_TEST_WORKERS=0 runs it in one process; a run of given tests is
# in one process unless it is set.
workers=${NOVA_MINI_TEST_WORKERS:-}
if [ -z "$workers" ] && [ ${#paths[@]} -gt 0 ]; then
    workers=2
fi
parallel=()
if [ -n "$workers" ] && [ "$workers" -gt 0 ]; then
    parallel=(-n "$workers" --dist loadfile --no-loadscope-reorder)
    log "pytest-xdist: $workers processes"
fi
set +e
(cd "$REPO" && timeout -k 60 "$TEST_TIMEOUT" "$VENV/bin/python" -m pytest \
    -p no:cacheprovider --basetemp="$TEST_TMP" -ra --durations=25 \
    "${parallel[@]}" "${paths[@]}" "$@")
rc=$?
set -e

case $rc in
    0) log "run-tests: all tests passed"
       [ -n "${NOVA_MINI_TEST_TMP:-}" ] || rm -rf "$TEST_TMP" ;;
    5) log "run-tests: FAILED: pytest collected no tests"; rc=1 ;;
    124) log "run-tests: FAILED: tests still running after ${TEST_TIMEOUT}s" ;;
    *) log "run-tests: FAILED: pytest exit status $rc" ;;
esac
if [ $rc -ne 0 ] && [ -n "$(ls -A "$TEST_TMP" 2>/dev/null)" ]; then
    log "run-tests: test logs and live stack state kept in $TEST_TMP"
fi

# 5. A whole run (no pytest arguments) also runs the checks of tox's pep8,
#    docs and releasenotes environments, and of the generated samples.
if [ $# -eq 0 ]; then
    log "checks: flake8, bashate, samples, docs, release notes"
    if ! NOVA_MINI_VENV=$VENV bash "$REPO/tools/run-checks.sh"; then
        log "run-tests: FAILED: checks (tools/run-checks.sh)"
        [ $rc -eq 0 ] && rc=1
    fi
fi
exit $rc
