#!/usr/bin/env bash
# The checks beside the tests, as tox's pep8, docs and releasenotes
# environments run them, in the test venv that tools/run-tests.sh builds
# (run that first on a new machine):
#   - flake8 (hacking) over the tree, bashate over the devstack plugin;
#   - the sample config and policy files in etc/, and the sample vendordata
#     service's in contrib/sample-vendordata-service/etc/, match what the
#     generators write from the code (regenerate with tox -e genconfig /
#     genpolicy);
#   - the documentation and the release notes build with warnings as
#     errors.
# Exit status: 0 when every check passed; each failure is named.
set -uo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV=${NOVA_MINI_VENV:-$REPO/.venv-tests}
BIN=$VENV/bin
WORK=$(mktemp -d "${TMPDIR:-/tmp}/nova_mini-checks.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$REPO" || exit 1

failed=()
check() {   # check NAME COMMAND...: run it, remember a failure
    local name=$1
    shift
    echo "[checks] $name"
    if ! "$@"; then
        echo "[checks] FAILED: $name"
        failed+=("$name")
    fi
}

same_as_generated() {   # same_as_generated COMMITTED GENERATED HOW
    if ! diff -u "$1" "$2" > "$WORK/diff"; then
        head -40 "$WORK/diff"
        echo "$1 is out of date: regenerate it with $3"
        return 1
    fi
}

config_sample() {   # config_sample GENERATOR_CONF COMMITTED
    "$BIN/oslo-config-generator" --config-file "$1" \
        --output-file "$WORK/generated" 2>"$WORK/stderr" \
        || { cat "$WORK/stderr"; return 1; }
    same_as_generated "$2" "$WORK/generated" "tox -e genconfig"
}

policy_sample() {
    "$BIN/oslopolicy-sample-generator" \
        --config-file etc/nova_mini/nova-mini-policy-generator.conf \
        --output-file "$WORK/policy" 2>"$WORK/stderr" \
        || { cat "$WORK/stderr"; return 1; }
    same_as_generated etc/nova_mini/policy.yaml.sample "$WORK/policy" \
        "tox -e genpolicy"
}

quiet_reno_lint() {   # reno lint (UID collisions, bad sections), quietly
    "$BIN/reno" lint > "$WORK/reno-lint" 2>&1 && return 0
    grep -v -E -e ': (adding|update to|copying data|note deleted) ' \
        -e '^(scanning|including|no configuration)' "$WORK/reno-lint"
    return 1
}

check flake8 "$BIN/flake8"
check bashate "$BIN/bashate" -v -i E005 devstack/plugin.sh devstack/settings \
    nova_mini/tests/unit/devstack/stub-functions.sh
check "config sample" config_sample \
    etc/nova_mini/nova-mini-config-generator.conf \
    etc/nova_mini/nova_mini.conf.sample
check "vendordata sample config" config_sample \
    contrib/sample-vendordata-service/etc/vendordata-sample-config-generator.conf \
    contrib/sample-vendordata-service/etc/vendordata-sample.conf.sample
check "policy sample" policy_sample
check docs "$BIN/sphinx-build" -q -W --keep-going -b html doc/source \
    "$WORK/docs"
check "release notes lint" quiet_reno_lint
check releasenotes "$BIN/sphinx-build" -q -W --keep-going -b html \
    releasenotes/source "$WORK/releasenotes"

if [ ${#failed[@]} -ne 0 ]; then
    echo "[checks] FAILED: ${failed[*]}"
    exit 1
fi
echo "[checks] all checks passed"
