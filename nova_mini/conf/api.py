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

"""Options of the [api] group: the API daemon and its request handling."""

from oslo_config import cfg

api_group = cfg.OptGroup('api', title='API options',
                         help='Options for nova-mini-api, which serves the '
                              '/compute and /baremetal API roots.')

api_opts = [
    cfg.StrOpt('auth_strategy',
               default='keystone',
               choices=[('keystone', 'Validate tokens with Keystone through '
                                     'keystonemiddleware auth_token.'),
                        ('noauth2', 'Development only: trust '
                                    '"X-Auth-Token: user:project"; the user '
                                    'named admin is an administrator.')],
               help='How API requests are authenticated.'),
    cfg.HostAddressOpt('bind_host', default='0.0.0.0',
                       help='Address the API server listens on.'),
    cfg.PortOpt('bind_port', default=8774,
                help='Port the API server listens on.'),
    cfg.IntOpt('workers', min=1,
               help='Number of API worker processes. Defaults to the number '
                    'of CPUs.'),
    cfg.IntOpt('threads_per_worker', default=8, min=1,
               help='Threads per worker process: each handles one request at '
                    'a time, so this bounds the concurrency of a worker.'),
    cfg.IntOpt('graceful_shutdown_timeout', default=30, min=0,
               help='Seconds that requests in flight may take to finish '
                    'after SIGTERM before the workers are killed.'),
    cfg.IntOpt('max_limit', default=1000, min=1,
               help='Largest number of items a collection returns in one '
                    'response; larger "limit" values are reduced to it.'),
    cfg.IntOpt('max_allocations_per_project', default=1000, min=-1,
               help='Bare-metal allocations a project may own when its '
                    'members create them (Ironic\'s '
                    'baremetal:allocation:create_restricted); -1: no '
                    'limit. An allocation that finds no node stays, in '
                    'state "error", until it is deleted, so without a '
                    'bound a member could fill the database. A create '
                    'past it answers 403. System administrators\' '
                    'creates are not limited. Concurrent creates may '
                    'pass it by the number of requests in flight.'),
    cfg.FloatOpt('regex_filter_timeout', default=2.0, min=0.05,
                 help='Longest time, in seconds, a server list may spend '
                      'on its regular-expression filters (name, hostname, '
                      'description, key_name ...); past it the request is '
                      'refused with 400 instead of holding an API worker '
                      'and the database. SQLite: the matching done in the '
                      'API process; PostgreSQL: the statement_timeout, '
                      'MariaDB: the max_statement_time (MySQL: '
                      'max_execution_time) of the list\'s query.'),
    # Ironic's option (its name, default and unit): a provision request
    # carries a config drive, up to 64 MiB of image ([DEFAULT]
    # config_drive_max_size).
    cfg.IntOpt('max_json_body_size_provision',
               default=65536, min=4,
               help='Largest request body, in KiB, of a bare-metal node\'s '
                    'provision request (PUT /baremetal/v1/nodes/{node}/'
                    'states/provision), which may carry a config drive: '
                    'a larger one is refused with 413 before it is parsed '
                    'and nothing is stored. Every other request keeps '
                    '[oslo_middleware] max_request_body_size. The body is '
                    'held in memory while the request is handled. '
                    'Defaults to 64 MiB, as Ironic\'s option of the same '
                    'name.'),
] + [
    # Vendordata of the metadata service (Nova keeps them in [api] too).
    cfg.ListOpt('vendordata_providers',
                default=['StaticJSON'],
                help='Names of the vendordata providers of the metadata '
                     'service, loaded from the entry point group '
                     'nova_mini.vendordata_providers (never from a Python '
                     'path): StaticJSON (vendordata_jsonfile_path, served as '
                     'vendor_data.json and as the "static" key of '
                     'vendor_data2.json), DynamicJSON '
                     '(vendordata_dynamic_targets, one key of '
                     'vendor_data2.json per target) or a name that an '
                     'installed plugin registers. An unknown name stops '
                     'nova-mini-metadata at start.'),
    cfg.StrOpt('vendordata_jsonfile_path',
               help='JSON file of the StaticJSON provider; its top level '
                    'must be an object. Read once, at start: a missing or '
                    'invalid file stops nova-mini-metadata. Unset: the '
                    'static vendordata is {}.'),
    cfg.ListOpt('vendordata_dynamic_targets',
                default=[],
                help='Targets of the DynamicJSON provider, as '
                     '<name>@<url>: <name> becomes the key of '
                     'vendor_data2.json that holds the JSON object the '
                     'REST service at <url> answers to a POST describing '
                     'the instance. A missing, duplicate or reserved '
                     '("static") name, or a URL that is not http(s), stops '
                     'nova-mini-metadata at start.'),
    cfg.StrOpt('vendordata_dynamic_ssl_certfile',
               default='',
               help='CA bundle (PEM) that the TLS certificates of https '
                    'vendordata targets are verified against, for a '
                    'private CA. Empty: the system CAs.'),
    cfg.BoolOpt('vendordata_dynamic_ssl_verify',
                default=True,
                help='Verify the TLS certificates of https vendordata '
                     'targets. Turning this off (logged as a warning at '
                     'start) lets anyone on the path impersonate a target '
                     'and read the service token sent to it.'),
    cfg.IntOpt('vendordata_dynamic_connect_timeout',
               default=5, min=3,
               help='Seconds to wait for the connection to a vendordata '
                    'target (at least 3, the TCP retransmission time). A '
                    'target that does not connect in time is left out of '
                    'vendor_data2.json. With '
                    'vendordata_dynamic_read_timeout, it also bounds a '
                    'whole call: see there.'),
    cfg.IntOpt('vendordata_dynamic_read_timeout',
               default=5, min=1,
               help='Seconds to wait for a connected vendordata target to '
                    'send data, at each read. A whole call (connecting, '
                    'sending, reading the reply) is also cut off after '
                    'vendordata_dynamic_connect_timeout + this, however '
                    'the target spreads its reply out: targets are called '
                    'in parallel, so a request for vendor_data2.json waits '
                    'at most that long for its targets.'),
    cfg.IntOpt('vendordata_dynamic_max_size',
               default=1024 * 1024, min=1024,
               help='Largest reply, in bytes, accepted from a vendordata '
                    'target, as received and once decompressed (a small '
                    'gzip reply can decompress to gigabytes); a larger one '
                    'is a failed target, read no further. The default, 1 '
                    'MiB, is memcached\'s default largest item, so a reply '
                    'up to it can be shared in the cache, and is far more '
                    'than a document for cloud-init needs (Nova caps user '
                    'data at 64 KiB). Each metadata worker keeps up to '
                    'vendordata_dynamic_cache_size replies in memory '
                    'without [cache]: size the two together.'),
    cfg.BoolOpt('vendordata_dynamic_failure_fatal',
                default=False,
                help='When a vendordata target fails (timeout, connection '
                     'or TLS error, an error status, a reply that is not a '
                     'JSON object, is too large or is nested too deep), '
                     'fail the request for vendor_data2.json with a 502 '
                     'naming the target instead of leaving its key out.'),
    cfg.IntOpt('vendordata_dynamic_cache_max_age',
               default=3600, min=0,
               help='Longest time, in seconds, that a reply of a '
                    'vendordata target is reused for an instance, whatever '
                    'its Cache-Control or Expires headers allow. 0 turns '
                    'the cache off: every request calls every target. The '
                    'store is oslo.cache\'s region of the [cache] group when '
                    '[cache] enabled is true (memcached, for several '
                    'metadata workers or hosts), an in-process cache of '
                    'vendordata_dynamic_cache_size entries otherwise.'),
    cfg.IntOpt('vendordata_dynamic_cache_size',
               default=10000, min=1,
               help='Entries of the in-process vendordata cache (used when '
                    '[cache] enabled is false): one per instance and '
                    'target; the least recently used go first. With a '
                    'cache outside the process (memcached), the fresh '
                    'entries each worker keeps of what it read there.'),
]


def register_opts(conf):
    conf.register_group(api_group)
    conf.register_opts(api_opts, group=api_group)


def list_opts():
    return {api_group: api_opts}
