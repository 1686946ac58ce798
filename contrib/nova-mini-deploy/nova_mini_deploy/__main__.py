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

"""Command line of the deployment, used by tools/stack.sh, tools/unstack.sh
and tools/run-tests.sh.

    python -m nova_mini_deploy up --state-dir DIR \
        [--api-port 8774] [--metadata-port 8775] [--keystone-port 5000] \
        [--virtual-host NAME] [--rabbit-user NAME] \
        [--vendordata-sample-port 8790] \
        [--glance-port 9292] [--redfish-systems 4] [--redfish-port PORT]
    python -m nova_mini_deploy enroll-redfish --state-dir DIR
    python -m nova_mini_deploy samples --state-dir DIR
    python -m nova_mini_deploy down --state-dir DIR
    python -m nova_mini_deploy status --state-dir DIR
    python -m nova_mini_deploy ensure-rabbitmq
    python -m nova_mini_deploy ensure-keystone-venv
    python -m nova_mini_deploy ensure-glance-venv
    python -m nova_mini_deploy ensure-sushy-tools-venv
    python -m nova_mini_deploy redfish-emulator-up --state-dir DIR \
        [--systems 4] [--port PORT] [--username NAME --password PASSWORD] \
        [--tls] [--power-delay LOW,HIGH]
    python -m nova_mini_deploy redfish-emulator-down --state-dir DIR

``up`` leaves the processes running in the background; ``down`` finds them
again through the pid files of the state directory. So do
``redfish-emulator-up`` (which prints the emulator's URL, CA file,
credentials and systems as JSON) and ``redfish-emulator-down``.
"""

import argparse
import json
import logging
import os
import sys

from nova_mini_deploy import glance
from nova_mini_deploy import images_server
from nova_mini_deploy import keystone
from nova_mini_deploy import rabbitmq
from nova_mini_deploy import redfish_emulator
from nova_mini_deploy import samples
from nova_mini_deploy import stack
from nova_mini_deploy import util


def _say(message):
    print(message, flush=True)


def cmd_up(args):
    st = stack.Stack(args.state_dir, api_port=args.api_port,
                     metadata_port=args.metadata_port,
                     keystone_port=args.keystone_port, debug=args.debug,
                     virtual_host=args.virtual_host,
                     vendordata_sample_port=args.vendordata_sample_port,
                     glance_port=args.glance_port,
                     rabbit_user=args.rabbit_user,
                     redfish_systems=args.redfish_systems,
                     redfish_port=args.redfish_port)
    try:
        st.up(log=_say, start_daemons=not args.skip_daemons)
    except Exception:
        # Leave nothing half-started behind (Keystone answering 500 to the
        # set-up too, not only our own errors).
        st.adopt()
        st.down(stop_rabbit=False)
        raise
    st.detach()
    return 0


def cmd_enroll_redfish(args):
    st = stack.Stack(args.state_dir).adopt()
    if not st.redfish:
        _say('no Redfish emulator in %s ("up --redfish-systems N")'
             % args.state_dir)
        return 1
    st.enroll_redfish_nodes(log=_say)
    return 0


def cmd_samples(args):
    st = stack.Stack(args.state_dir)
    nodes = samples.ensure(st, log=_say)
    # For tools/stack.sh's summary.
    _say('nodes: %s' % ' '.join(nodes))
    _say('images: %s' % ' '.join(sorted(st.images)))
    return 0


def cmd_down(args):
    if not os.path.isdir(args.state_dir):
        _say('nothing to stop: %s does not exist' % args.state_dir)
        return 0
    st = stack.Stack(args.state_dir).adopt()
    running = [name for name, pid in st.status().items() if pid]
    codes = st.down(stop_rabbit=not args.keep_rabbitmq)
    for name in running:
        _say('%s: stopped' % name)
    if not running:
        _say('nothing was running')
    return 0 if all(c in (0, None) for c in codes.values()) else 1


def cmd_status(args):
    st = stack.Stack(args.state_dir).adopt()
    status = st.status()
    for name, pid in status.items():
        _say('%-28s %s' % (name, 'running (pid %d)' % pid if pid
                           else 'stopped'))
    return 0 if all(status.values()) else 3


def cmd_ensure_rabbitmq(args):
    rabbit = rabbitmq.RabbitMQ(port=args.port).ensure()
    _say('started' if rabbit.started_here else 'running')
    return 0


def cmd_ensure_keystone_venv(args):
    _say(keystone.ensure_venv())
    return 0


def cmd_ensure_glance_venv(args):
    _say(glance.ensure_venv())
    return 0


def cmd_ensure_sushy_tools_venv(args):
    _say(redfish_emulator.ensure_venv())
    return 0


def _power_delay(value):
    try:
        low, high = (int(v) for v in value.split(','))
    except ValueError:
        raise argparse.ArgumentTypeError('LOW,HIGH (whole seconds), not %r'
                                         % value)
    if not 0 <= low <= high:
        raise argparse.ArgumentTypeError('0 <= LOW <= HIGH, not %r' % value)
    return low, high


def cmd_redfish_emulator_up(args):
    if bool(args.username) != bool(args.password):
        raise util.ServiceError('--username and --password go together')
    os.makedirs(args.state_dir, exist_ok=True)
    if os.path.exists(os.path.join(args.state_dir,
                                   redfish_emulator.NAME + '.json')):
        old = redfish_emulator.RedfishEmulator.load(args.state_dir)
        if old.process:
            raise util.ServiceError(
                'the Redfish emulator of %s runs (pid %d): '
                'redfish-emulator-down first'
                % (args.state_dir, old.process.pid))
    emulator = redfish_emulator.RedfishEmulator(
        args.state_dir, systems=args.systems, port=args.port,
        auth=(args.username, args.password) if args.username else None,
        tls=args.tls, power_delay=args.power_delay,
        keep_state=args.keep_state)
    emulator.start()
    emulator.detach()
    _say(json.dumps(emulator.describe(), indent=2))
    return 0


def cmd_redfish_emulator_down(args):
    info = os.path.join(args.state_dir, redfish_emulator.NAME + '.json')
    if not os.path.exists(info):
        _say('nothing to stop: no Redfish emulator in %s' % args.state_dir)
        return 0
    emulator = redfish_emulator.RedfishEmulator.load(args.state_dir)
    if not emulator.process:
        _say('nothing was running')
        return 0
    emulator.stop()
    _say('%s: stopped' % redfish_emulator.NAME)
    return 0


def cmd_images_server_up(args):
    server = images_server.ImagesServer(args.state_dir, args.http_root,
                                        port=args.port, host=args.host)
    if server.adopt():
        raise util.ServiceError('%s of %s runs (pid %d): images-server-down '
                                'first' % (images_server.NAME,
                                           args.state_dir, server.process.pid))
    server.start()
    server.detach()
    _say(json.dumps({'http_url': server.url, 'http_root': server.http_root,
                     'pid': server.process.pid, 'log': server.log_path},
                    indent=2))
    return 0


def cmd_images_server_down(args):
    server = images_server.ImagesServer(args.state_dir, '.')
    if not server.adopt():
        _say('nothing was running')
        return 0
    server.stop()
    _say('%s: stopped' % images_server.NAME)
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='python -m nova_mini_deploy',
        description='Start and stop RabbitMQ, Keystone, Glance, '
                    'nova_mini and a Redfish emulator.')
    sub = parser.add_subparsers(dest='command', required=True)

    up = sub.add_parser('up', help='set up and start everything')
    up.add_argument('--state-dir', required=True)
    up.add_argument('--api-port', type=int)
    up.add_argument('--metadata-port', type=int)
    up.add_argument('--keystone-port', type=int)
    up.add_argument('--glance-port', type=int)
    up.add_argument('--virtual-host',
                    help='RabbitMQ virtual host of the daemons (default: '
                         'the one of a previous "up", else "/"); made if '
                         'missing (and then deleted by "down")')
    up.add_argument('--rabbit-user',
                    help='RabbitMQ user of the daemons (default: the one '
                         'of a previous "up", else guest); made with a '
                         'generated password kept in the state directory '
                         'and every permission on the virtual host '
                         '(deleted by "down" if "up" made it)')
    up.add_argument('--vendordata-sample-port', type=int,
                    help='also run nova-mini-vendordata-sample on this '
                         'port, and serve StaticJSON and DynamicJSON (the '
                         'sample) vendordata; kept by later runs')
    up.add_argument('--redfish-systems', type=int,
                    help='also run a Redfish BMC emulator (sushy-tools) '
                         'with this many fake systems, enrolled as redfish '
                         'nodes rf-0.. once the daemons run (default: as '
                         'a previous "up", else none)')
    up.add_argument('--redfish-port', type=int,
                    help="the Redfish emulator's port (default: a free "
                         'one, kept by later runs)')
    up.add_argument('--debug', action='store_true',
                    help='debug logging in the daemons')
    up.add_argument('--skip-daemons', action='store_true',
                    help='configure nova_mini (config file, database) but '
                         'leave starting its daemons to a service manager')
    up.set_defaults(func=cmd_up)

    down = sub.add_parser('down', help='stop what "up" started')
    down.add_argument('--state-dir', required=True)
    down.add_argument('--keep-rabbitmq', action='store_true',
                      help='leave RabbitMQ running even if "up" started it')
    down.set_defaults(func=cmd_down)

    enroll = sub.add_parser(
        'enroll-redfish', help='enroll, manage and provide the Redfish '
        "emulator's systems as redfish nodes (done by \"up\" when it "
        'starts the daemons); nodes that exist are left alone')
    enroll.add_argument('--state-dir', required=True)
    enroll.set_defaults(func=cmd_enroll_redfish)

    smp = sub.add_parser(
        'samples', help="tools/stack.sh's sample flavors (m1.*, bm.*) and "
        'fake-hardware nodes (bm-0, bm-1, bm-gpu-0), made available; those '
        'that exist are left alone. Its last lines list the nodes and '
        'images ("nodes: ...", "images: ...")')
    smp.add_argument('--state-dir', required=True)
    smp.set_defaults(func=cmd_samples)

    status = sub.add_parser('status', help='which processes run')
    status.add_argument('--state-dir', required=True)
    status.set_defaults(func=cmd_status)

    rabbit = sub.add_parser('ensure-rabbitmq',
                            help='start RabbitMQ unless it answers; prints '
                                 '"started" or "running"')
    rabbit.add_argument('--port', type=int, default=5672)
    rabbit.set_defaults(func=cmd_ensure_rabbitmq)

    venv = sub.add_parser('ensure-keystone-venv',
                          help='build the Keystone venv unless it exists')
    venv.set_defaults(func=cmd_ensure_keystone_venv)

    venv = sub.add_parser('ensure-glance-venv',
                          help='build the Glance venv unless it exists')
    venv.set_defaults(func=cmd_ensure_glance_venv)

    venv = sub.add_parser('ensure-sushy-tools-venv',
                          help='build the sushy-tools (Redfish emulator) '
                               'venv unless it exists')
    venv.set_defaults(func=cmd_ensure_sushy_tools_venv)

    emu = sub.add_parser('redfish-emulator-up',
                         help='start a Redfish emulator (sushy-tools, fake '
                              'systems) in the background; prints its URL, '
                              'CA file, credentials and systems as JSON')
    emu.add_argument('--state-dir', required=True)
    emu.add_argument('--systems', type=int, default=4,
                     help='how many fake systems (default 4)')
    emu.add_argument('--port', type=int, help='default: a free one')
    emu.add_argument('--username', help='basic auth user (with --password)')
    emu.add_argument('--password')
    emu.add_argument('--tls', action='store_true',
                     help='HTTPS with a throw-away CA (its file in the '
                          'output)')
    emu.add_argument('--power-delay', type=_power_delay,
                     metavar='LOW,HIGH',
                     help='whole seconds a power change takes to show '
                          '(default: the emulator\'s own, 1-11)')
    emu.add_argument('--keep-state', action='store_true',
                     help='keep the systems\' power state and media of '
                          'an earlier emulator of the state directory')
    emu.set_defaults(func=cmd_redfish_emulator_up)

    emu = sub.add_parser('redfish-emulator-down',
                         help='stop what redfish-emulator-up started')
    emu.add_argument('--state-dir', required=True)
    emu.set_defaults(func=cmd_redfish_emulator_down)

    img = sub.add_parser('images-server-up',
                         help='serve a directory (the conductors\' [deploy] '
                              'http_root) for the BMCs\' virtual media: '
                              'gunicorn in the background; prints its URL '
                              '([deploy] http_url) as JSON')
    img.add_argument('--state-dir', required=True)
    img.add_argument('--http-root', required=True)
    img.add_argument('--port', type=int, help='default: a free one')
    img.add_argument('--host', default=util.LOCALHOST,
                     help='address to listen on: one the BMCs reach '
                          '(default %s)' % util.LOCALHOST)
    img.set_defaults(func=cmd_images_server_up)

    img = sub.add_parser('images-server-down',
                         help='stop what images-server-up started')
    img.add_argument('--state-dir', required=True)
    img.set_defaults(func=cmd_images_server_down)

    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format='%(levelname)s %(name)s: %(message)s')
    logging.getLogger('keystoneauth').setLevel(logging.WARNING)
    logging.getLogger('urllib3').setLevel(logging.WARNING)
    try:
        return args.func(args)
    except util.ServiceError as exc:
        print('ERROR: %s' % exc, file=sys.stderr)
        return 1


if __name__ == '__main__':
    sys.exit(main())
