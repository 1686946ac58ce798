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
# The Redfish BMC emulator (sushy-tools) whose fake systems are the redfish
# nodes rf-0..: how many (0: none), its port.
REDFISH_SYSTEMS=${NOVA_MINI_REDFISH_SYSTEMS:-4}
REDFISH_PORT=${NOVA_MINI_REDFISH_PORT:-8000}
# The sample first: the metadata service calls it.
DAEMONS=(nova-mini-vendordata-sample nova-mini-api nova-mini-scheduler nova-mini-metadata
         nova-mini-conductor)

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
# The project, its installer, the sample vendordata service and every
# client the commands printed at the end use (tools/lib.sh says which).
ensure_venv "${STACK_PIP_ARGS[@]}"

# 2. RabbitMQ, Keystone (users, projects, catalog), nova_mini's config and
#    database, and (unless systemd starts them) the daemons.
up_args=(--state-dir "$STATE" --api-port "$API_PORT"
         --metadata-port "$METADATA_PORT" --keystone-port "$KEYSTONE_PORT"
         --glance-port "$GLANCE_PORT"
         --virtual-host "$RABBIT_VHOST" --rabbit-user "$RABBIT_USER"
         --vendordata-sample-port "$SAMPLE_PORT")
if [ "$REDFISH_SYSTEMS" -gt 0 ]; then
    up_args+=(--redfish-systems "$REDFISH_SYSTEMS" --redfish-port "$REDFISH_PORT")
fi
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
        conf_args=(--config-file "$conf")
        # Its own [DEFAULT] host, read after nova_mini.conf.
        if [ "$daemon" = nova-mini-conductor ]; then
            conf_args+=(--config-file "$STATE/etc/$daemon.conf")
        fi
        # Stop timeouts above [api]/[metadata] (30 s) and [filter_scheduler]
        # (60 s) graceful_shutdown_timeout, as in etc/systemd/.
        stop_timeout=40
        [ "$daemon" = nova-mini-scheduler ] && stop_timeout=70
        # Type=notify: systemd-run returns once the daemon sent READY=1.
        systemd-run --unit "$daemon" --description "nova_mini $daemon" \
            --property Type=notify --property KillMode=mixed \
            --property TimeoutStartSec=90 --property TimeoutStopSec="$stop_timeout" \
            -- "$VENV/bin/$daemon" "${conf_args[@]}" \
            || die "$daemon did not start: journalctl -u $daemon"
        log "$daemon: ready (systemd unit $daemon)"
    done
    # "deploy up" enrolls the redfish nodes itself when it starts the
    # daemons; here they have just started.
    if [ "$REDFISH_SYSTEMS" -gt 0 ]; then
        deploy enroll-redfish --state-dir "$STATE" || die "enrolling the redfish nodes failed"
    fi
fi

# 3. Nova's classic flavors (m1.*), sample bare-metal nodes (fake-hardware:
#    nothing is powered or deployed for real) made available, and the
#    flavors that ask for them (bm.*, each taking one whole node; bm.gpu one
#    with trait CUSTOM_GPU; bm.redfish a redfish node), through the APIs with
#    the admin's token. Known by name: a second run leaves them (and the
#    servers on them) as they are. Its last lines name the nodes and images.
NODES="" IMAGES=""
samples=$(deploy samples --state-dir "$STATE") \
    || { printf '%s\n' "$samples" >&2; die "creating the sample flavors and nodes failed"; }
while IFS= read -r line; do
    case $line in
        "nodes: "*) NODES=${line#nodes: } ;;
        "images: "*) IMAGES=${line#images: } ;;
        *) log "$line" ;;
    esac
done <<<"$samples"
# shellcheck disable=SC1091
source "$STATE/openrc"

if [ "$LAUNCHER" = systemd ]; then
    LOGS="journalctl -u nova-mini-api (and -scheduler, -metadata, -conductor, -vendordata-sample)"
else
    LOGS="$STATE/logs/nova-mini-{api,scheduler,metadata,conductor,vendordata-sample}.log"
fi
REDFISH=""
if [ "$REDFISH_SYSTEMS" -gt 0 ]; then
    REDFISH="
  Redfish BMCs https://127.0.0.1:$REDFISH_PORT   (sushy-tools' emulator, $REDFISH_SYSTEMS systems: the rf-* nodes)
               CA $STATE/redfish/ca.pem, log $STATE/redfish/sushy-emulator.log"
    REDFISH_HELP="

The rf-* nodes are redfish nodes: nova-mini-conductor drives them through
the Redfish emulator, whose log shows each request (its power changes take
1 to 3 s):

  openstack baremetal node power on rf-0
  openstack server create --image nova-mini-boot-iso --flavor bm.redfish --no-network --wait r
  tail $STATE/redfish/sushy-emulator.log

(the server's node is powered on with the ISO in its virtual CD; deleting
the server powers it off and ejects the CD)."
else
    REDFISH_HELP=""
fi

cat <<EOF

nova_mini is running.

  Compute API  http://127.0.0.1:$API_PORT/compute/v2.1   (Keystone tokens)
  Bare metal   http://127.0.0.1:$API_PORT/baremetal   nodes: $NODES
  Metadata     http://127.0.0.1:$METADATA_PORT/openstack
  Vendordata   http://127.0.0.1:$SAMPLE_PORT/   (nova-mini-vendordata-sample, target "sample")
  Keystone     $OS_AUTH_URL   user admin, password $OS_PASSWORD
  Glance       http://127.0.0.1:$GLANCE_PORT   images: $IMAGES$REDFISH
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
fake-hardware node.)$REDFISH_HELP

Read what server x reads from the metadata service: its vendordata
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
