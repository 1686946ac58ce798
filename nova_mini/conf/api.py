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
]


def register_opts(conf):
    conf.register_group(api_group)
    conf.register_opts(api_opts, group=api_group)


def list_opts():
    return {api_group: api_opts}
