#!/usr/bin/env bash
# nova_mini quick start on Debian: install, configure and start everything.
#
#   tools/stack.sh      (again at any time: it starts only what is missing)
#   tools/unstack.sh    stops it all
#
# Installs the Debian packages it needs, the project with its installer
# (contrib/nova-mini-deploy) and the sample vendordata service
# (contrib/sample-vendordata-service), and the openstack CLI with its
# baremetal plugin (python-ironicclient) into $NOVA_MINI_VENV
# (default .venv), starts RabbitMQ if it does not answer and gives the
# daemons a virtual host and user of their own ($NOVA_MINI_RABBIT_VHOST and
# $NOVA_MINI_RABBIT_USER, both default nova_mini), sets up Keystone
# (PyPI keystone, in its own venv) on port 5000 and Glance (PyPI glance, in
# its own venv, file store under $NOVA_MINI_STATE/glance/images) on port 9292
# with a small cirros-like image uploaded, writes the config under
# $NOVA_MINI_STATE (default ~/.nova_mini), syncs the database, starts
# nova-mini-api (8774), nova-mini-scheduler and nova-mini-metadata (8775)
# with StaticJSON and DynamicJSON vendordata from the sample vendordata
# service nova-mini-vendordata-sample (8790), creates the m1.* flavors,
# three sample fake-hardware nodes (bm-0, bm-1, bm-gpu-0 with trait
# CUSTOM_GPU) and the flavors bm.small and bm.gpu that take them, and
# writes an openrc for the openstack CLI.
# The daemons run in the background, or as transient systemd units
# (systemd-run) when systemd is PID 1; NOVA_MINI_LAUNCHER=process|systemd
# forces one way.
set -euo pipefail
# shellcheck source=tools/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

STATE=${NOVA_MINI_STATE:-${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}/.nova_mini}
API_PORT=${NOVA_MINI_API_PORT:-8774}
METADATA_PORT=${NOVA_MINI_METADATA_PORT:-8775}
KEYSTONE_PORT=${NOVA_MINI_KEYSTONE_PORT:-5000}
GLANCE_PORT=${NOVA_MINI_GLANCE_PORT:-9292}
SAMPLE_PORT=${NOVA_MINI_VENDORDATA_SAMPLE_PORT:-8790}
# The daemons' own RabbitMQ virtual host and user (password generated, kept
# in $STATE/stack.json); another stack on the same broker needs other names.
RABBIT_VHOST=${NOVA_MINI_RABBIT_VHOST:-nova_mini}
RABBIT_USER=${NOVA_MINI_RABBIT_USER:-nova_mini}
# The sample first: the metadata service calls it.
DAEMONS=(nova-mini-vendordata-sample nova-mini-api nova-mini-scheduler nova-mini-metadata)

if [ -n "${NOVA_MINI_LAUNCHER:-}" ]; then
    LAUNCHER=$NOVA_MINI_LAUNCHER
elif [ -d /run/systemd/system ] && [ "$(ps -p 1 -o comm= 2>/dev/null)" = systemd ]; then
    LAUNCHER=systemd
else
    LAUNCHER=process
fi

log "nova_mini stack: state $STATE, venv $VENV, daemons as $LAUNCHER"

# 1. Debian packages and the project.
apt_ensure python3-venv python3-dev build-essential rabbitmq-server
# Every client the commands printed at the end use: openstack (compute,
# image, identity) and its baremetal plugin (python-ironicclient).
# The installer (contrib/nova-mini-deploy) and the sample vendordata
# service (contrib/sample-vendordata-service) are distributions of their
# own, beside nova_mini.
ensure_venv -e . -e ./contrib/nova-mini-deploy \
    -e ./contrib/sample-vendordata-service \
    python-openstackclient python-ironicclient

# 2. RabbitMQ, Keystone (users, projects, catalog), nova_mini's config and
#    database, and (unless systemd starts them) the daemons.
up_args=(--state-dir "$STATE" --api-port "$API_PORT"
         --metadata-port "$METADATA_PORT" --keystone-port "$KEYSTONE_PORT"
         --glance-port "$GLANCE_PORT"
         --virtual-host "$RABBIT_VHOST" --rabbit-user "$RABBIT_USER"
         --vendordata-sample-port "$SAMPLE_PORT")
[ "$LAUNCHER" = systemd ] && up_args+=(--skip-daemons)
deploy up "${up_args[@]}" || die "setting up the stack failed (logs in $STATE)"

if [ "$LAUNCHER" = systemd ]; then
    for daemon in "${DAEMONS[@]}"; do
        if systemctl is-active --quiet "$daemon"; then
            log "$daemon: already running (systemd unit)"
            continue
        fi
        systemctl reset-failed "$daemon" >/dev/null 2>&1 || true
        conf="$STATE/etc/nova_mini.conf"
        [ "$daemon" = nova-mini-vendordata-sample ] && conf="$STATE/etc/$daemon.conf"
        # Stop timeouts above [api]/[metadata] (30 s) and [filter_scheduler]
        # (60 s) graceful_shutdown_timeout, as in etc/systemd/.
        stop_timeout=40
        [ "$daemon" = nova-mini-scheduler ] && stop_timeout=70
        # Type=notify: systemd-run returns once the daemon sent READY=1.
        systemd-run --unit "$daemon" --description "nova_mini $daemon" \
            --property Type=notify --property KillMode=mixed \
            --property TimeoutStartSec=90 --property TimeoutStopSec="$stop_timeout" \
            -- "$VENV/bin/$daemon" --config-file "$conf" \
            || die "$daemon did not start: journalctl -u $daemon"
        log "$daemon: ready (systemd unit $daemon)"
    done
fi

# 3. Nova's classic flavors, as the admin of the openrc.
# shellcheck disable=SC1091
source "$STATE/openrc"
existing=$(openstack flavor list --all -f value -c Name) || die "openstack flavor list failed"
create_flavor() {   # create_flavor ID NAME RAM_MB DISK_GB VCPUS
    if grep -qx -- "$2" <<<"$existing"; then
        log "flavor $2: exists"
    else
        openstack flavor create --id "$1" --ram "$3" --disk "$4" \
            --vcpus "$5" --public "$2" >/dev/null || die "could not create flavor $2"
        log "flavor $2: created"
    fi
}
create_flavor 1 m1.tiny 512 1 1
create_flavor 2 m1.small 2048 20 1
create_flavor 3 m1.medium 4096 40 2
create_flavor 4 m1.large 8192 80 4

# 4. Sample bare-metal nodes (fake-hardware: nothing is powered or
#    deployed for real), made available, and the flavors that ask for them.
#    Nodes are known by name: a second run leaves them (and the servers on
#    them) as they are.
nodes=$(openstack baremetal node list -f value -c Name) || die "openstack baremetal node list failed"
create_node() {   # create_node NAME CAPABILITIES [TRAIT...]
    local name=$1 caps=$2 trait
    shift 2
    if grep -qx -- "$name" <<<"$nodes"; then
        log "node $name: exists"
        return 0
    fi
    openstack baremetal node create --driver fake-hardware --name "$name" \
        --resource-class baremetal --property cpus=8 \
        --property memory_mb=16384 --property local_gb=100 \
        --property capabilities="$caps" >/dev/null || die "could not create node $name"
    for trait in "$@"; do
        openstack baremetal node add trait "$name" "$trait" >/dev/null \
            || die "could not add trait $trait to node $name"
    done
    openstack baremetal node manage --wait 60 "$name" >/dev/null \
        && openstack baremetal node provide --wait 60 "$name" >/dev/null \
        || die "node $name did not become available"
    log "node $name: created, available"
}
create_node bm-0 boot_mode:bios
create_node bm-1 boot_mode:uefi
create_node bm-gpu-0 boot_mode:uefi CUSTOM_GPU
# Each flavor takes one whole node of resource class baremetal (and no
# VCPU, memory or disk of its own); bm.gpu only one with trait CUSTOM_GPU.
create_flavor bm.small bm.small 16384 100 8
create_flavor bm.gpu bm.gpu 16384 100 8
openstack flavor set bm.small --property resources:CUSTOM_BAREMETAL=1 \
    --property resources:VCPU=0 --property resources:MEMORY_MB=0 \
    --property resources:DISK_GB=0 || die "could not set bm.small's extra specs"
openstack flavor set bm.gpu --property resources:CUSTOM_BAREMETAL=1 \
    --property resources:VCPU=0 --property resources:MEMORY_MB=0 \
    --property resources:DISK_GB=0 --property trait:CUSTOM_GPU=required \
    || die "could not set bm.gpu's extra specs"

if [ "$LAUNCHER" = systemd ]; then
    LOGS="journalctl -u nova-mini-api (and -scheduler, -metadata, -vendordata-sample)"
else
    LOGS="$STATE/logs/nova-mini-{api,scheduler,metadata,vendordata-sample}.log"
fi

cat <<EOF

nova_mini is running.

  Compute API  http://127.0.0.1:$API_PORT/compute/v2.1   (Keystone tokens)
  Bare metal   http://127.0.0.1:$API_PORT/baremetal   nodes: $(openstack baremetal node list -f value -c Name | paste -sd ' ')
  Metadata     http://127.0.0.1:$METADATA_PORT/openstack
  Vendordata   http://127.0.0.1:$SAMPLE_PORT/   (nova-mini-vendordata-sample, target "sample")
  Keystone     $OS_AUTH_URL   user admin, password $OS_PASSWORD
  Glance       http://127.0.0.1:$GLANCE_PORT   images: $(openstack image list -f value -c Name | paste -sd ' ')
  RabbitMQ     127.0.0.1:5672, virtual host $RABBIT_VHOST, user $RABBIT_USER (password in $STATE/stack.json)
  openrc       $STATE/openrc   (admin; $STATE/openrc-demo: user demo, a member)
  Config       $STATE/etc/nova_mini.conf
  Logs         $LOGS
               $STATE/keystone/keystone.log, $STATE/glance/glance.log

Use it with the openstack CLI (installed in $VENV):

  source $STATE/openrc
  openstack baremetal node list
  openstack flavor list
  openstack server create --image cirros-0.6.3-x86_64-disk --flavor bm.gpu --no-network --wait x

(bm.gpu lands on bm-gpu-0, the node with trait CUSTOM_GPU; bm.small on any
node.) Read what server x reads from the metadata service: its vendordata
(StaticJSON from $STATE/etc/vendordata-static.json under "static",
the sample's answer under "sample"), or any other file with --path:

  nova-mini-manage --config-file $STATE/etc/nova_mini.conf metadata show x
  nova-mini-manage --config-file $STATE/etc/nova_mini.conf metadata show x --path latest/meta_data.json

or with curl, signing the instance id as Neutron's metadata proxy does
(SERVER_ID and PROJECT_ID from 'openstack server show SERVER'):

  SECRET=\$(sed -n 's/^metadata_proxy_shared_secret = //p' $STATE/etc/nova_mini.conf)
  curl -s http://127.0.0.1:$METADATA_PORT/openstack/latest/vendor_data2.json \\
      -H "X-Instance-ID: \$SERVER_ID" -H "X-Tenant-ID: \$PROJECT_ID" \\
      -H "X-Instance-ID-Signature: \$(printf %s "\$SERVER_ID" | openssl dgst -sha256 -hmac "\$SECRET" | awk '{print \$NF}')"

Stop everything with tools/unstack.sh; run tools/stack.sh again to restart.
EOF
