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
        [--glance-port 9292]
    python -m nova_mini_deploy down --state-dir DIR
    python -m nova_mini_deploy status --state-dir DIR
    python -m nova_mini_deploy ensure-rabbitmq
    python -m nova_mini_deploy ensure-keystone-venv
    python -m nova_mini_deploy ensure-glance-venv

``up`` leaves the processes running in the background; ``down`` finds them
again through the pid files of the state directory.
"""

import argparse
import logging
import os
import sys

from nova_mini_deploy import glance
from nova_mini_deploy import keystone
from nova_mini_deploy import rabbitmq
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
                     rabbit_user=args.rabbit_user)
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


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='python -m nova_mini_deploy',
        description='Start and stop RabbitMQ, Keystone, Glance and '
                    'nova_mini.')
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
