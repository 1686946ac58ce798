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
]


def register_opts(conf):
    conf.register_group(metadata_group)
    conf.register_opts(metadata_opts, group=metadata_group)


def list_opts():
    return {metadata_group: metadata_opts}
