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

"""Options of the sample vendordata service, group ``[vendordata_sample]``.

The service reads its own config file (not nova_mini.conf), so the
options are registered on a ConfigOpts of its own, passed around
explicitly; oslo-config-generator lists them under the namespace
``nova_mini_vendordata_sample``.
"""

from oslo_config import cfg

GROUP = cfg.OptGroup('vendordata_sample',
                     title='Sample vendordata service options',
                     help='Options of nova-mini-vendordata-sample, the '
                          'sample target of the DynamicJSON vendordata '
                          'provider.')

KEYSTONE = 'keystone'
NOAUTH = 'noauth'

OPTS = [
    cfg.HostAddressOpt('bind_host', default='127.0.0.1',
                       help='Address the service listens on. The metadata '
                            'service must reach it; it need not be '
                            'reachable from instances.'),
    cfg.PortOpt('bind_port', default=8790,
                help='Port the service listens on.'),
    cfg.IntOpt('workers', default=1, min=1,
               help='Number of worker processes.'),
    cfg.IntOpt('threads_per_worker', default=8, min=1,
               help='Threads per worker process.'),
    cfg.IntOpt('graceful_shutdown_timeout', default=30, min=0,
               help='Seconds that requests in flight may take to finish '
                    'after SIGTERM before the workers are killed.'),
    cfg.StrOpt('auth_strategy', default=KEYSTONE,
               choices=[(KEYSTONE, 'Validate tokens with keystonemiddleware '
                                   'auth_token ([keystone_authtoken]).'),
                        (NOAUTH, 'Accept every request as coming from a '
                                 'caller with the allowed roles. For tests '
                                 'and benchmarks only.')],
               help='How callers are authenticated.'),
    cfg.ListOpt('allowed_roles', default=['admin', 'service'],
                help='Roles allowed to read vendordata: the caller (the '
                     'metadata service\'s [vendordata_dynamic_auth] user) '
                     'needs at least one of them, else 403.'),
    cfg.IntOpt('cache_max_age', default=300, min=0,
               help='Seconds the metadata service may reuse an answer '
                    '(Cache-Control: max-age). After that it revalidates '
                    'with If-None-Match and gets 304 when nothing '
                    'changed.'),
    cfg.StrOpt('join_secret', secret=True,
               help='Secret keying the per-instance join-token '
                    '(hex HMAC-SHA256 of the project and instance ids). '
                    'Unset: no join-token in the answers.'),
    cfg.StrOpt('realm', default='example.org',
               help='Domain appended to the instance host name in the '
                    '"fqdn" of the answers.'),
    cfg.IntOpt('max_request_body', default=256 * 1024, min=1024,
               help='Largest request body accepted, in bytes (413 '
                    'above).'),
    cfg.FloatOpt('response_delay', default=0.0, min=0.0,
                 help='FOR TESTS AND BENCHMARKS ONLY: seconds to wait '
                      'before every answer, to stand for a slow '
                      'upstream (a directory, a certificate authority). '
                      'Logged as a warning at start when not 0.'),
]


def register_opts(conf):
    conf.register_group(GROUP)
    conf.register_opts(OPTS, group=GROUP)


def list_opts():
    """For oslo-config-generator (namespace nova_mini_vendordata_sample)."""
    return [(GROUP, OPTS)]
