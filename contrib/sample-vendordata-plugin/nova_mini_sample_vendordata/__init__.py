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
