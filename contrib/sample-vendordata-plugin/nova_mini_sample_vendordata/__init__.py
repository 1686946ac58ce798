"""A fictional third-party vendordata provider: the instance's host name
in the deployment's DNS domain."""

import re

from oslo_config import cfg

from nova_mini import exception

GROUP = 'sample_host_info'
OPTS = [
    cfg.StrOpt('domain', default='novalocal',
               help='DNS domain of the instances\' host names.'),
]

# A DNS name: dot-separated labels of letters, digits and hyphens.
_DOMAIN = re.compile(r'^(?!-)[a-z0-9-]{1,63}(?<!-)'
                     r'(\.(?!-)[a-z0-9-]{1,63}(?<!-))*$')


class SampleHostInfo:
    """vendor_data2.json key ``host_info``: fqdn and project."""

    keys = frozenset(['host_info'])

    def __init__(self, conf):
        conf.register_opts(OPTS, group=GROUP)
        self.domain = conf[GROUP].domain.lower()
        if not _DOMAIN.match(self.domain):
            raise exception.VendorDataConfigError(
                reason='[%s] domain %r is not a DNS domain'
                       % (GROUP, conf[GROUP].domain))

    def get(self, instance):
        return {'host_info': {
            'fqdn': '%s.%s' % (instance.hostname.lower(), self.domain),
            'project_id': instance.project_id}}


class SampleClash:
    """For nova_mini's tests: claims the key of StaticJSON."""

    keys = frozenset(['static'])

    def __init__(self, conf):
        pass

    def get(self, instance):
        return {'static': {'clash': True}}
