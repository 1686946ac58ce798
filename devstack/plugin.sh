#!/bin/bash
#
# devstack plugin for nova_mini: devstack sources this file with the phase
# it is in ("stack install", "stack post-config", "stack extra", "unstack",
# "clean"). The daemons run under devstack's run_process (systemd units
# devstack@nova-mini-*.service).

NOVA_MINI_XTRACE=$(set +o | grep xtrace)
set -o xtrace

# The daemons, in the order they start (the sample vendordata service
# first: the metadata service calls it).
NOVA_MINI_DAEMONS="nova-mini-vendordata-sample nova-mini-api"
NOVA_MINI_DAEMONS+=" nova-mini-scheduler nova-mini-metadata"
NOVA_MINI_DAEMONS+=" nova-mini-conductor"

function install_nova_mini {
    setup_develop "$NOVA_MINI_DIR"
    if is_service_enabled nova-mini-vendordata-sample; then
        setup_develop "$NOVA_MINI_VENDORDATA_SAMPLE_DIR"
    fi
}

function _nova_mini_rabbit_url {
    # The virtual host and user of nova_mini's own on devstack's broker.
    sudo rabbitmqctl add_vhost "$NOVA_MINI_RABBIT_VHOST" || true
    sudo rabbitmqctl add_user "$NOVA_MINI_RABBIT_USER" \
        "$NOVA_MINI_RABBIT_PASSWORD" ||
        sudo rabbitmqctl change_password "$NOVA_MINI_RABBIT_USER" \
            "$NOVA_MINI_RABBIT_PASSWORD"
    sudo rabbitmqctl set_permissions -p "$NOVA_MINI_RABBIT_VHOST" \
        "$NOVA_MINI_RABBIT_USER" ".*" ".*" ".*"
    local credentials="$NOVA_MINI_RABBIT_USER:$NOVA_MINI_RABBIT_PASSWORD"
    echo "rabbit://$credentials@$SERVICE_HOST:5672/$NOVA_MINI_RABBIT_VHOST"
}

function configure_nova_mini {
    sudo install -d -o "$STACK_USER" "$NOVA_MINI_CONF_DIR"
    rm -f "$NOVA_MINI_CONF"

    iniset "$NOVA_MINI_CONF" DEFAULT debug "$ENABLE_DEBUG_LOG_LEVEL"
    iniset "$NOVA_MINI_CONF" DEFAULT transport_url "$(_nova_mini_rabbit_url)"
    iniset "$NOVA_MINI_CONF" database connection \
        "$(database_connection_url "$NOVA_MINI_DB_NAME")"

    iniset "$NOVA_MINI_CONF" api auth_strategy keystone
    iniset "$NOVA_MINI_CONF" api bind_host "$SERVICE_LISTEN_ADDRESS"
    iniset "$NOVA_MINI_CONF" api bind_port "$NOVA_MINI_API_PORT"
    iniset "$NOVA_MINI_CONF" api workers "$NOVA_MINI_API_WORKERS"
    configure_keystone_authtoken_middleware "$NOVA_MINI_CONF" nova_mini

    iniset "$NOVA_MINI_CONF" metadata bind_host "$SERVICE_LISTEN_ADDRESS"
    iniset "$NOVA_MINI_CONF" metadata bind_port "$NOVA_MINI_METADATA_PORT"
    iniset "$NOVA_MINI_CONF" metadata workers "$NOVA_MINI_METADATA_WORKERS"
    iniset "$NOVA_MINI_CONF" metadata metadata_proxy_shared_secret \
        "$NOVA_MINI_METADATA_SECRET"

    # Dynamic vendordata answers cached in devstack's memcached, shared by
    # the metadata workers.
    if [[ "$NOVA_MINI_USE_MEMCACHE" == "True" ]]; then
        iniset "$NOVA_MINI_CONF" cache enabled True
        iniset "$NOVA_MINI_CONF" cache backend dogpile.cache.pymemcache
        iniset "$NOVA_MINI_CONF" cache memcache_servers \
            "${MEMCACHE_SERVERS:-localhost:11211}"
    fi

    iniset "$NOVA_MINI_CONF" DEFAULT force_config_drive "$FORCE_CONFIG_DRIVE"
    _configure_nova_mini_vendordata
}

function _nova_mini_join_secret {
    if [[ -n "$NOVA_MINI_VENDORDATA_JOIN_SECRET" ]]; then
        echo "$NOVA_MINI_VENDORDATA_JOIN_SECRET"
    else
        printf 'vendordata-join:%s' "$NOVA_MINI_METADATA_SECRET" |
            sha256sum | cut -d' ' -f1
    fi
}

function _configure_nova_mini_vendordata {
    # StaticJSON: a document for the deployer to replace (kept if there).
    if [[ ! -e "$NOVA_MINI_VENDORDATA_STATIC" ]]; then
        cat > "$NOVA_MINI_VENDORDATA_STATIC" <<EOF
{
  "cloud-name": "nova_mini devstack",
  "support": "https://example.org/cloud-support"
}
EOF
    fi
    local targets=$NOVA_MINI_VENDORDATA_DYNAMIC_TARGETS
    if is_service_enabled nova-mini-vendordata-sample; then
        local url
        url="http://$SERVICE_HOST:$NOVA_MINI_VENDORDATA_SAMPLE_PORT/"
        targets="sample@$url${targets:+,$targets}"
        _configure_nova_mini_vendordata_sample
    fi
    local providers=StaticJSON
    if [[ -n "$targets" ]]; then
        providers+=",DynamicJSON"
    fi
    iniset "$NOVA_MINI_CONF" api vendordata_providers "$providers"
    iniset "$NOVA_MINI_CONF" api vendordata_jsonfile_path \
        "$NOVA_MINI_VENDORDATA_STATIC"
    if [[ -n "$targets" ]]; then
        iniset "$NOVA_MINI_CONF" api vendordata_dynamic_targets "$targets"
        # A token of the nova_mini service user for the targets.
        local section=vendordata_dynamic_auth
        iniset "$NOVA_MINI_CONF" $section auth_type password
        iniset "$NOVA_MINI_CONF" $section auth_url "$KEYSTONE_SERVICE_URI"
        iniset "$NOVA_MINI_CONF" $section username nova_mini
        iniset "$NOVA_MINI_CONF" $section password "$SERVICE_PASSWORD"
        iniset "$NOVA_MINI_CONF" $section project_name \
            "$SERVICE_PROJECT_NAME"
        iniset "$NOVA_MINI_CONF" $section user_domain_name Default
        iniset "$NOVA_MINI_CONF" $section project_domain_name Default
    fi
}

function _configure_nova_mini_vendordata_sample {
    local conf=$NOVA_MINI_VENDORDATA_SAMPLE_CONF
    rm -f "$conf"
    iniset "$conf" DEFAULT debug "$ENABLE_DEBUG_LOG_LEVEL"
    iniset "$conf" vendordata_sample bind_host "$SERVICE_LISTEN_ADDRESS"
    iniset "$conf" vendordata_sample bind_port \
        "$NOVA_MINI_VENDORDATA_SAMPLE_PORT"
    iniset "$conf" vendordata_sample auth_strategy keystone
    iniset "$conf" vendordata_sample join_secret "$(_nova_mini_join_secret)"
    # Tokens validated with Keystone as the nova_mini service user.
    configure_keystone_authtoken_middleware "$conf" nova_mini
    chmod 600 "$conf"
}

function create_nova_mini_accounts {
    create_service_user nova_mini admin

    local compute baremetal base
    base="$SERVICE_PROTOCOL://$SERVICE_HOST:$NOVA_MINI_API_PORT"
    compute=$(get_or_create_service nova_mini compute \
        "nova_mini compute (Nova-compatible)")
    get_or_create_endpoint "$compute" "$REGION_NAME" "$base/compute/v2.1"
    baremetal=$(get_or_create_service nova_mini-baremetal baremetal \
        "nova_mini bare metal (Ironic-compatible)")
    get_or_create_endpoint "$baremetal" "$REGION_NAME" "$base/baremetal"
}

function configure_nova_mini_conductor {
    # nova-mini-conductor reads nova_mini.conf, then this file: a
    # [DEFAULT] host of its own (the API registers the machine's, and the
    # two never share one).
    rm -f "$NOVA_MINI_CONDUCTOR_CONF"
    iniset "$NOVA_MINI_CONDUCTOR_CONF" DEFAULT host "$NOVA_MINI_CONDUCTOR_HOST"
}

function init_nova_mini {
    recreate_database "$NOVA_MINI_DB_NAME"
    "$NOVA_MINI_BIN_DIR/nova-mini-manage" --config-file "$NOVA_MINI_CONF" \
        db sync
}

function start_nova_mini {
    local daemon conf
    for daemon in $NOVA_MINI_DAEMONS; do
        if is_service_enabled "$daemon"; then
            conf=$NOVA_MINI_CONF
            if [[ "$daemon" == nova-mini-vendordata-sample ]]; then
                conf=$NOVA_MINI_VENDORDATA_SAMPLE_CONF
            elif [[ "$daemon" == nova-mini-conductor ]]; then
                conf+=" --config-file $NOVA_MINI_CONDUCTOR_CONF"
            fi
            run_process "$daemon" \
                "$NOVA_MINI_BIN_DIR/$daemon --config-file $conf"
        fi
    done
}

function configure_nova_mini_tempest {
    # The in-tree Tempest plugin (contrib/tempest-plugin): the metadata
    # service as the proxy reaches it, and the sample's target to check.
    iniset "$TEMPEST_CONFIG" service_available nova_mini True
    iniset "$TEMPEST_CONFIG" nova_mini metadata_url \
        "http://$SERVICE_HOST:$NOVA_MINI_METADATA_PORT"
    iniset "$TEMPEST_CONFIG" nova_mini metadata_shared_secret \
        "$NOVA_MINI_METADATA_SECRET"
    if is_service_enabled nova-mini-vendordata-sample; then
        iniset "$TEMPEST_CONFIG" nova_mini vendordata_sample_target sample
    fi
}

function stop_nova_mini {
    local daemon
    for daemon in $NOVA_MINI_DAEMONS; do
        stop_process "$daemon"
    done
}

function cleanup_nova_mini {
    sudo rm -rf "$NOVA_MINI_CONF_DIR"
    sudo rabbitmqctl delete_vhost "$NOVA_MINI_RABBIT_VHOST" || true
}

NOVA_MINI_BIN_DIR=${NOVA_MINI_BIN_DIR:-$(get_python_exec_prefix)}

if is_service_enabled $NOVA_MINI_DAEMONS; then
    if [[ "$1" == "stack" && "$2" == "install" ]]; then
        echo_summary "Installing nova_mini"
        install_nova_mini
    elif [[ "$1" == "stack" && "$2" == "post-config" ]]; then
        echo_summary "Configuring nova_mini"
        configure_nova_mini
        if is_service_enabled nova-mini-conductor; then
            configure_nova_mini_conductor
        fi
        create_nova_mini_accounts
        init_nova_mini
    elif [[ "$1" == "stack" && "$2" == "extra" ]]; then
        echo_summary "Starting nova_mini"
        start_nova_mini
    elif [[ "$1" == "stack" && "$2" == "test-config" ]]; then
        if is_service_enabled tempest; then
            echo_summary "Configuring Tempest for nova_mini"
            configure_nova_mini_tempest
        fi
    fi

    if [[ "$1" == "unstack" ]]; then
        stop_nova_mini
    fi

    if [[ "$1" == "clean" ]]; then
        cleanup_nova_mini
    fi
fi

$NOVA_MINI_XTRACE
