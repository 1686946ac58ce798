#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""nova-mini-manage: operator commands.

    nova-mini-manage [--config-file F] db sync [--revision R]
    nova-mini-manage db version
    nova-mini-manage scheduler ping [--timeout S]
    nova-mini-manage conductor ping [--hostname H] [--timeout S]
    nova-mini-manage extra-specs list [--namespace NS]
    nova-mini-manage extra-specs show KEY
    nova-mini-manage extra-specs metadefs --output-dir DIR
    nova-mini-manage flavor audit
    nova-mini-manage image-properties list [--namespace NS]
    nova-mini-manage image-properties show NAME
    nova-mini-manage image-properties validate [--permissive] KEY=VALUE...
    nova-mini-manage image-properties metadefs --output-dir DIR
    nova-mini-manage image-properties audit [--format json] [--strict]
    nova-mini-manage metadata show SERVER [--path latest/vendor_data2.json]
    nova-mini-manage metadata show SERVER --config-drive [--path PATH]
    nova-mini-manage node list [--trait T] [--not-trait T] [--trait-any T]
                               [--not-trait-any T] [--format json]

Each group of sub-commands beyond db and scheduler lives in a module of
its own: ``manage_extra_specs`` (extra-specs, flavor audit),
``manage_image_properties`` (image-properties) and
``manage_metadata`` (metadata; its config drive reader in
``manage_config_drive``), ``manage_nodes`` (node).
"""

import functools
import sys

from oslo_config import cfg
from oslo_log import log as logging
import oslo_messaging as messaging

from nova_mini.cmd import manage_extra_specs
from nova_mini.cmd import manage_image_properties
from nova_mini.cmd import manage_metadata
from nova_mini.cmd import manage_nodes
from nova_mini import conf
from nova_mini import config
from nova_mini import context as nm_context
from nova_mini.db import api as db_api
from nova_mini.db import migration
from nova_mini import rpc

CONF = conf.CONF


def _db_sync():
    db_api.configure(CONF)
    migration.db_sync(revision=CONF.command.revision)
    print('Database is at revision %s' % migration.db_version())
    return 0


def _db_version():
    db_api.configure(CONF)
    print(migration.db_version() or 'None')
    return 0


def _scheduler_ping():
    from nova_mini.scheduler import rpcapi
    try:
        reply = rpcapi.SchedulerAPI(CONF).ping(
            nm_context.get_admin_context(), timeout=CONF.command.timeout)
    except messaging.MessagingTimeout:
        print('No scheduler answered within %ss' % CONF.command.timeout,
              file=sys.stderr)
        return 1
    finally:
        rpc.cleanup()
    print('scheduler on %(host)s answered (version %(version)s, RPC API '
          '%(rpc_api_version)s)' % reply)
    return 0


def _conductor_ping():
    """Ping the nova-mini-conductor ``--hostname``, else every alive one of
    the registry (the hosts registered for a hardware type it drives);
    1 if one did not answer or none is alive.
    """
    from nova_mini.conductor import drivers
    from nova_mini.conductor import rpcapi
    from nova_mini.objects.baremetal import conductor as conductor_obj
    context = nm_context.get_admin_context()
    hosts = [CONF.command.hostname] if CONF.command.hostname else None
    if hosts is None:
        db_api.configure(CONF)
        real = set(drivers.REAL_HARDWARE_TYPES)
        hosts = sorted(row.hostname
                       for row in conductor_obj.get_all(context)
                       if conductor_obj.is_alive(row) and
                       real & set(row.drivers or []))
        if not hosts:
            print('No alive nova-mini-conductor in the conductors registry',
                  file=sys.stderr)
            return 1
    status = 0
    api = rpcapi.ConductorAPI(CONF)
    try:
        for host in hosts:
            try:
                reply = api.ping(context, host, timeout=CONF.command.timeout)
            except messaging.MessagingTimeout:
                print('conductor %s did not answer within %ss'
                      % (host, CONF.command.timeout), file=sys.stderr)
                status = 1
                continue
            print('conductor %(host)s answered (version %(version)s, RPC '
                  'API %(rpc_api_version)s, %(in_progress)d hardware '
                  'operation(s) in progress)' % reply)
    finally:
        rpc.cleanup()
    return status


_COMMANDS = {
    ('db', 'sync'): _db_sync,
    ('db', 'version'): _db_version,
    ('scheduler', 'ping'): _scheduler_ping,
    ('conductor', 'ping'): _conductor_ping,
    ('metadata', 'show'): lambda: manage_metadata.show(CONF),
}
for _group in (manage_extra_specs, manage_image_properties, manage_nodes):
    _COMMANDS.update({name: functools.partial(handler, CONF)
                      for name, handler in _group.COMMANDS.items()})


def _add_parsers(subparsers):
    db = subparsers.add_parser('db', help='Database schema')
    db_actions = db.add_subparsers(dest='action')
    db_actions.required = True
    sync = db_actions.add_parser('sync', help='Upgrade the schema')
    sync.add_argument('--revision', default='head',
                      help='Target revision (default: the newest).')
    db_actions.add_parser('version', help='Show the schema revision')

    scheduler = subparsers.add_parser('scheduler', help='Scheduler service')
    scheduler_actions = scheduler.add_subparsers(dest='action')
    scheduler_actions.required = True
    ping = scheduler_actions.add_parser(
        'ping', help='Check that a scheduler answers over RPC')
    ping.add_argument('--timeout', type=int, default=10,
                      help='Seconds to wait for an answer.')

    conductor = subparsers.add_parser(
        'conductor', help='Bare-metal conductor service')
    conductor_actions = conductor.add_subparsers(dest='action')
    conductor_actions.required = True
    ping = conductor_actions.add_parser(
        'ping', help='Check that the alive nova-mini-conductors (or one) '
                     'answer over RPC')
    ping.add_argument('--hostname',
                      help='Only this conductor (its [DEFAULT] host).')
    ping.add_argument('--timeout', type=int, default=10,
                      help='Seconds to wait for each answer.')

    manage_extra_specs.add_parsers(subparsers)
    manage_image_properties.add_parsers(subparsers)
    manage_metadata.add_parser(subparsers)
    manage_nodes.add_parser(subparsers)


_command_opt = cfg.SubCommandOpt('command', title='Commands',
                                 handler=_add_parsers)


def main(argv=None):
    if 'command' not in CONF:
        CONF.register_cli_opt(_command_opt)
    if 'use_stderr' not in CONF:
        logging.register_options(CONF)
    # Results go to stdout, for scripts to read; log messages (unless a
    # log file is configured) to stderr.
    CONF.set_default('use_stderr', True)
    config.parse_args(argv or sys.argv)
    handler = _COMMANDS[(CONF.command.name, CONF.command.action)]
    return handler()
