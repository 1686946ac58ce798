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

"""Options of the [DEFAULT] group that belong to nova_mini itself.

``transport_url`` and ``rpc_response_timeout`` come from oslo.messaging and
``debug``/``log_file`` from oslo.log; they are registered by those libraries.
"""

import os
import socket

from oslo_config import cfg

default_opts = [
    cfg.StrOpt('host',
               sample_default='<current_hostname>',
               default=socket.gethostname(),
               help='Name of this host as seen by the other services. It '
                    'names the RPC server of the scheduler and appears in '
                    'logs; it must be unique among scheduler hosts.'),
    cfg.StrOpt('state_path',
               sample_default='/var/lib/nova_mini',
               default=os.path.join(os.path.expanduser('~'), '.nova_mini'),
               help='Directory where nova_mini keeps its state, such as the '
                    'default SQLite database.'),
    cfg.StrOpt('default_availability_zone',
               default='nova',
               help='The availability zone of every node. nova_mini has one '
                    'zone: a server asking for another one is refused, and '
                    'a built server shows this one. Administrators may name '
                    'a node with "<zone>::<node uuid or name>".'),
    cfg.BoolOpt('force_config_drive',
                default=False,
                help='Give every server built from now on a config drive, '
                     'whatever its create request says (as Nova\'s option '
                     'of the same name). A server also gets one when its '
                     'create request asks for it ("config_drive": true) or '
                     'its image has the property img_config_drive=mandatory. '
                     'Servers already built are not affected; a server '
                     'given a drive keeps one through its rebuilds and '
                     'shows config_drive "True". Read by the scheduler, '
                     'which builds the drive at deploy.'),
    # Neither Nova nor Ironic has an option for it: Nova's vfat drive is a
    # 64 MiB disk, and Ironic's agent refuses a larger config drive
    # partition.
    cfg.IntOpt('config_drive_max_size',
               default=64 * 1024 * 1024, min=1024 * 1024,
               help='Largest config drive image, in bytes, once decoded '
                    'from gzip + base64: a provision request whose '
                    '"configdrive" is larger, or builds a larger image from '
                    'a JSON object, is refused (400) and nothing is '
                    'stored. The default, 64 MiB, is the disk Nova makes '
                    'for a vfat config drive and the largest config drive '
                    'partition Ironic\'s agent writes. The provision '
                    'request\'s body limit ([api] '
                    'max_json_body_size_provision) applies first to the '
                    'text itself.'),
    cfg.ListOpt('enabled_hardware_types',
                default=['fake-hardware', 'redfish'],
                help='The hardware types (drivers) this host\'s services '
                     'drive. A nova-mini-conductor registers the real ones '
                     'of the list (redfish) and drives their nodes; '
                     'fake-hardware nodes are driven by nova-mini-api in '
                     'its requests.'),
    cfg.IntOpt('hash_partition_exponent', default=5, min=1,
               help='The nodes are spread over the alive conductors of '
                    'their hardware type by a consistent hash ring of '
                    '2 ** hash_partition_exponent partitions per conductor. '
                    'Larger values spread them more evenly and cost more '
                    'memory. The same on every service.'),
    cfg.IntOpt('hash_ring_reset_interval', default=15, min=0,
               help='Seconds a service keeps its copy of the conductors\' '
                    'hash ring before reading the alive conductors again.'),
]


# Interface type -> the implementations enabled by default: every one
# nova_mini has (those of fake-hardware and of redfish, see
# nova_mini.objects.baremetal.node_interfaces), so that enabling nothing
# more keeps every node as it was.
DEFAULT_ENABLED_INTERFACES = {
    'bios': ['fake', 'no-bios'],
    'boot': ['fake', 'redfish-virtual-media'],
    'console': ['fake', 'no-console'],
    'deploy': ['fake', 'ramdisk'],
    'inspect': ['fake', 'no-inspect'],
    'management': ['fake', 'redfish'],
    'network': ['noop'],
    'power': ['fake', 'redfish'],
    'raid': ['fake', 'no-raid'],
    'rescue': ['fake', 'no-rescue'],
    'storage': ['fake', 'noop'],
    'vendor': ['fake', 'no-vendor'],
}


def _interface_opts(kind, enabled):
    return [
        cfg.ListOpt('enabled_%s_interfaces' % kind,
                    default=list(enabled),
                    help='The %(kind)s interface implementations nodes may '
                         'have (Ironic\'s option). A node asking for '
                         'another one is refused (400), and a node naming '
                         'none gets the first implementation of its '
                         'hardware type that this list enables (or '
                         'default_%(kind)s_interface). nova-mini-conductor '
                         'does not start when a hardware type it drives '
                         'has none enabled, or when the list names an '
                         'implementation nova_mini does not have. Keep it '
                         'the same on every service.' % {'kind': kind}),
        cfg.StrOpt('default_%s_interface' % kind,
                   help='The %(kind)s interface implementation of nodes '
                        'created (or given a new driver with '
                        'reset_interfaces) without one, instead of the '
                        'first that their hardware type supports among '
                        'enabled_%(kind)s_interfaces. It must be enabled '
                        'and supported by the node\'s hardware type, or '
                        'the node is refused (400).' % {'kind': kind}),
    ]


interface_opts = [opt for kind, enabled in
                  sorted(DEFAULT_ENABLED_INTERFACES.items())
                  for opt in _interface_opts(kind, enabled)]


def register_opts(conf):
    conf.register_opts(default_opts)
    conf.register_opts(interface_opts)


def list_opts():
    return {'DEFAULT': default_opts + interface_opts}
