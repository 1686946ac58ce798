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

"""Options of the [metadata] group: the metadata daemon."""

from oslo_config import cfg

metadata_group = cfg.OptGroup('metadata', title='Metadata service options',
                              help='Options for nova-mini-metadata, which '
                                   'serves instance metadata and '
                                   'vendordata.')

metadata_opts = [
    cfg.HostAddressOpt('bind_host', default='0.0.0.0',
                       help='Address the metadata server listens on.'),
    cfg.PortOpt('bind_port', default=8775,
                help='Port the metadata server listens on.'),
    cfg.IntOpt('workers', min=1,
               help='Number of metadata worker processes. Defaults to the '
                    'number of CPUs.'),
    cfg.IntOpt('threads_per_worker', default=8, min=1,
               help='Threads per metadata worker process.'),
    cfg.IntOpt('graceful_shutdown_timeout', default=30, min=0,
               help='Seconds that requests in flight may take to finish '
                    'after SIGTERM before the workers are killed.'),
    cfg.StrOpt('metadata_proxy_shared_secret',
               default='',
               secret=True,
               help='Secret shared with the metadata proxy (Neutron\'s '
                    'metadata agent): each request names its instance in '
                    'X-Instance-ID and proves it with '
                    'X-Instance-ID-Signature, the hex HMAC-SHA256 of the '
                    'instance id keyed with this secret. Without it '
                    'nova-mini-metadata refuses to start, unless '
                    'insecure_unsigned_requests is set. Nova keeps this '
                    'option in [neutron].'),
    cfg.BoolOpt('insecure_unsigned_requests',
                default=False,
                help='Only when metadata_proxy_shared_secret is empty: '
                     'start anyway and identify instances by the '
                     'X-Instance-ID and X-Tenant-ID headers alone, without '
                     'a signature. Anyone who can reach the service and '
                     'knows an instance id and its project then reads that '
                     'instance\'s metadata and user data: for tests and '
                     'isolated networks only. Ignored (with a warning) '
                     'when a secret is set: signatures are then always '
                     'checked.'),
    cfg.IntOpt('metadata_cache_expiration',
               default=15,
               min=0,
               help='Seconds a rendered meta_data.json or network_data.json '
                    'is reused. The instance is read on every request and '
                    'a document is reused only while the instance is '
                    'unchanged (same updated_at), so a change shows at '
                    'once; this only bounds how long a document, with its '
                    'random_seed, is kept. 0 disables the cache. Nova '
                    'keeps this option in [api].'),
    cfg.IntOpt('metadata_cache_size',
               default=4096,
               min=1,
               help='Most documents each worker process keeps in its '
                    'cache; the least recently used go first.'),
    cfg.StrOpt('dhcp_domain',
               default='novalocal',
               help='Domain appended to an instance\'s host name in '
                    'meta_data.json ("<hostname>.<dhcp_domain>"); empty for '
                    'the bare host name. Nova keeps this option in '
                    '[api].'),
]


def register_opts(conf):
    conf.register_group(metadata_group)
    conf.register_opts(metadata_opts, group=metadata_group)


def list_opts():
    return {metadata_group: metadata_opts}
