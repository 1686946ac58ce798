"""Options of the [upgrade_levels] group: RPC version pins for upgrades."""

from oslo_config import cfg

upgrade_group = cfg.OptGroup('upgrade_levels', title='Upgrade levels',
                             help='Cap the RPC API versions clients send, so '
                                  'that services of the older release keep '
                                  'understanding them during a rolling '
                                  'upgrade.')

upgrade_opts = [
    cfg.StrOpt('scheduler',
               help='Highest scheduler RPC API version to send, such as '
                    '"1.0". Unset means the newest this code knows.'),
]


def register_opts(conf):
    conf.register_group(upgrade_group)
    conf.register_opts(upgrade_opts, group=upgrade_group)


def list_opts():
    return {upgrade_group: upgrade_opts}
