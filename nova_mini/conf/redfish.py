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

"""Options of the [redfish] group: how the ``redfish`` hardware type of
nova-mini-conductor talks to the BMCs (through sushy). The names and
defaults are Ironic's."""

from oslo_config import cfg

redfish_group = cfg.OptGroup(
    'redfish', title='Redfish driver options',
    help='How nova-mini-conductor reaches the BMCs of the nodes of the '
         'redfish hardware type.')

redfish_opts = [
    cfg.IntOpt('connection_attempts', default=5, min=1,
               help='How many times one operation on a BMC is tried when '
                    'the BMC cannot be reached or answers with a server '
                    'error (5xx) before the operation fails.'),
    cfg.IntOpt('connection_retry_interval', default=4, min=1,
               help='Seconds before the second attempt of an operation on '
                    'a BMC; each further attempt waits twice as long as '
                    'the one before, 30 seconds at most.'),
    cfg.IntOpt('connect_timeout', default=30, min=1,
               help='Seconds to wait for the TCP connection to a BMC. A '
                    'low value makes an unreachable BMC fail sooner.'),
    cfg.IntOpt('read_timeout', default=60, min=1,
               help='Seconds to wait for the answer of a BMC to one HTTP '
                    'request.'),
    cfg.IntOpt('connection_cache_size', default=1000, min=0,
               help='How many Redfish clients (one per BMC address, '
                    'credentials and TLS verification) are kept to reuse '
                    'their sessions; the least recently used one is '
                    'dropped beyond that. 0 disables the cache: every '
                    'operation then opens a new session.'),
    cfg.StrOpt('auth_type', default='auto',
               choices=[('basic', 'HTTP basic authentication on every '
                                  'request'),
                        ('session', 'A Redfish session (SessionService), '
                                    'reused while it is valid'),
                        ('auto', 'A Redfish session when the BMC offers '
                                 'one, basic authentication otherwise')],
               help='How the driver authenticates to a BMC when the node\'s '
                    'driver_info has no redfish_auth_type.'),
    cfg.StrOpt('verify_ca',
               help='The CA bundle file (or directory of certificates) that '
                    'verifies the BMCs\' certificates when a node\'s '
                    'driver_info has no redfish_verify_ca or has it true. '
                    'Unset: the system\'s trusted CAs.'),
]


def register_opts(conf):
    conf.register_group(redfish_group)
    conf.register_opts(redfish_opts, group=redfish_group)


def list_opts():
    return {redfish_group: redfish_opts}
