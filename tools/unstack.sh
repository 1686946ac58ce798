#!/usr/bin/env bash
# Stop what tools/stack.sh started: the daemons, Keystone, Glance, and
# RabbitMQ if stack.sh had to start it; delete the stack's RabbitMQ virtual
# host and user (stack.sh makes them again). The state ($NOVA_MINI_STATE, default
# ~/.nova_mini) is kept for the next stack.sh; --purge deletes it too.
set -euo pipefail
# shellcheck source=tools/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

STATE=${NOVA_MINI_STATE:-${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}/.nova_mini}
PURGE=0
case "${1:-}" in
    --purge) PURGE=1 ;;
    "") ;;
    *) die "usage: tools/unstack.sh [--purge]" ;;
esac

if command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
    for daemon in nova-mini-api nova-mini-scheduler nova-mini-metadata nova-mini-conductor nova-mini-vendordata-sample; do
        if systemctl is-active --quiet "$daemon" 2>/dev/null; then
            systemctl stop "$daemon" && log "$daemon: stopped (systemd unit)"
        fi
    done
fi

if [ -d "$STATE" ]; then
    [ -x "$VENV/bin/python" ] || die "no venv at $VENV: cannot stop the stack in $STATE"
    deploy down --state-dir "$STATE" || die "some processes did not stop cleanly (logs in $STATE/logs)"
else
    log "nothing to stop: $STATE does not exist"
fi

if [ "$PURGE" = 1 ]; then
    rm -rf "$STATE"
    log "removed $STATE"
fi
