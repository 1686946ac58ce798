# A stand-in for the devstack functions nova_mini's plugin calls, for
# tests: each call is appended to $STUB_CALLS (one line, words separated by
# tabs); iniset writes real ini files (through $STUB_PYTHON), so the test
# reads the configuration the plugin writes as the daemons would.

function _stub_record {
    local IFS=$'\t'
    echo "$*" >> "$STUB_CALLS"
}

function define_plugin {
    _stub_record define_plugin "$@"
}
function plugin_requires {
    _stub_record plugin_requires "$@"
}
function echo_summary {
    :
}

function enable_service {
    local service
    for service in "$@"; do
        ENABLED_SERVICES="${ENABLED_SERVICES:+$ENABLED_SERVICES,}$service"
    done
}

function disable_service {
    local service
    for service in "$@"; do
        ENABLED_SERVICES=$(echo ",$ENABLED_SERVICES," |
            sed -e "s/,$service,/,/" -e 's/^,//' -e 's/,$//')
    done
}

function is_service_enabled {
    local service
    for service in "$@"; do
        [[ ",$ENABLED_SERVICES," == *",$service,"* ]] && return 0
    done
    return 1
}

function trueorfalse {
    local default=$1 value=${!2:-}
    case "${value,,}" in
        1|yes|true|on) echo True ;;
        0|no|false|off) echo False ;;
        *) echo "$default" ;;
    esac
}

function iniset {
    _stub_record iniset "$@"
    # -S: configparser is all it needs; the site packages' .pth files
    # (imports of their own) would be read at each of the many calls.
    "$STUB_PYTHON" -S - "$@" <<'PY'
import configparser, os, sys
path, section, option, value = sys.argv[1:5]
parser = configparser.RawConfigParser()
parser.optionxform = str
if os.path.exists(path):
    parser.read(path)
if section != 'DEFAULT' and not parser.has_section(section):
    parser.add_section(section)
parser.set(section, option, value)
with open(path, 'w') as out:
    parser.write(out)
PY
}

function sudo {
    _stub_record sudo "$@"
    case "$1" in
        install|rm) "$@" ;;
    esac
}

function setup_develop {
    _stub_record setup_develop "$@"
}
function get_python_exec_prefix {
    echo /opt/stack/bin
}
function recreate_database {
    _stub_record recreate_database "$@"
}

# A SQLite file per database name, so the plugin's "db sync" really runs.
function database_connection_url {
    echo "sqlite:///$STUB_DB_DIR/$1.sqlite"
}

function create_service_user {
    _stub_record create_service_user "$@"
}

function get_or_create_service {
    _stub_record get_or_create_service "$@"
    echo "service-$2"
}

function get_or_create_endpoint {
    _stub_record get_or_create_endpoint "$@"
}

function configure_keystone_authtoken_middleware {
    local conf=$1 user=$2 section=${3:-keystone_authtoken}
    iniset "$conf" "$section" auth_type password
    iniset "$conf" "$section" www_authenticate_uri "$KEYSTONE_SERVICE_URI"
    iniset "$conf" "$section" auth_url "$KEYSTONE_SERVICE_URI"
    iniset "$conf" "$section" username "$user"
    iniset "$conf" "$section" password "$SERVICE_PASSWORD"
    iniset "$conf" "$section" user_domain_name Default
    iniset "$conf" "$section" project_name "$SERVICE_PROJECT_NAME"
    iniset "$conf" "$section" project_domain_name Default
}

function run_process {
    _stub_record run_process "$@"
}
function stop_process {
    _stub_record stop_process "$@"
}
