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

"""The /compute API root: the version list, the v2.1 tree and, below
``/v2``, the same tree as Nova's v2 compatibility root (see legacy_v2.py).

Both version documents are Nova's: v2.0 with empty ``version`` and
``min_version`` (no microversions), v2.1 with the supported range.
"""

import copy

import pecan

from nova_mini.api.compute import extensions
from nova_mini.api.compute import flavors
from nova_mini.api.compute import keypairs
from nova_mini.api.compute import limits
from nova_mini.api.compute import quota_sets
from nova_mini.api.compute import server_groups
from nova_mini.api.compute import servers
from nova_mini.api.compute import versions
from nova_mini.api import wsgi

_DOCS = 'http://docs.openstack.org/'

# Nova 34's status and date of the v2.0 compatibility API (earlier Nova
# releases list it SUPPORTED, updated 2011-01-21T11:33:21Z; Tempest checks
# neither).
V20_STATUS = 'DEPRECATED'
V20_UPDATED = '2025-07-04T12:00:00Z'
V21_UPDATED = '2013-07-23T11:33:21Z'

# The path segment of each version below the root, and its fixed fields;
# listed in this order (Nova sorts them by id).
_VERSIONS = (
    ('v2', {'id': 'v2.0', 'status': V20_STATUS, 'version': '',
            'min_version': '', 'updated': V20_UPDATED,
            'media_version': '2'}),
    ('v2.1', {'id': 'v2.1', 'status': 'CURRENT',
              'version': str(versions.COMPUTE_API.max_version),
              'min_version': str(versions.COMPUTE_API.min_version),
              'updated': V21_UPDATED, 'media_version': '2.1'}),
)


def _root_url():
    # application_url is the API root (.../compute) whatever the path.
    return pecan.request.application_url.rstrip('/')


def _summary(segment, fields):
    doc = {key: value for key, value in fields.items()
           if key != 'media_version'}
    doc['links'] = [{'rel': 'self',
                     'href': '%s/%s/' % (_root_url(), segment)}]
    return doc


def _document(segment):
    """The version document served at ``/<segment>/``."""
    fields = dict(_VERSIONS)[segment]
    doc = _summary(segment, fields)
    doc['links'].append({'rel': 'describedby', 'type': 'text/html',
                         'href': _DOCS})
    doc['media-types'] = [{
        'base': 'application/json',
        'type': 'application/vnd.openstack.compute+json;version=%s'
                % fields['media_version'],
    }]
    return {'version': doc}


class V21Controller(object):
    extensions = extensions.ExtensionsController()
    flavors = flavors.FlavorsController()
    limits = limits.LimitsController()
    servers = servers.ServersController()

    @wsgi.expose()
    def index(self):
        return _document('v2.1')


class V2Controller(V21Controller):
    """``/v2``: the v2.1 tree served as the v2 API (see legacy_v2.py)."""

    @wsgi.expose()
    def index(self):
        return _document('v2')


class ComputeRootController(object):

    @wsgi.expose()
    def index(self):
        return {'versions': [_summary(segment, copy.deepcopy(fields))
                             for segment, fields in _VERSIONS]}


pecan.route(V21Controller, 'os-keypairs', keypairs.KeypairsController())
pecan.route(V21Controller, 'os-server-groups',
            server_groups.ServerGroupsController())
pecan.route(V21Controller, 'os-quota-sets',
            quota_sets.QuotaSetsController())
pecan.route(ComputeRootController, 'v2.1', V21Controller())
pecan.route(ComputeRootController, 'v2', V2Controller())
