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

"""The /compute API root: version documents and the v2.1 tree."""

import pecan

from nova_mini.api.compute import flavors
from nova_mini.api.compute import server_groups
from nova_mini.api.compute import servers
from nova_mini.api.compute import versions
from nova_mini.api import wsgi

_UPDATED = '2013-07-23T11:33:21Z'


def _version_document(root_url, links):
    api = versions.COMPUTE_API
    return {
        'id': 'v2.1',
        'status': 'CURRENT',
        'version': str(api.max_version),
        'min_version': str(api.min_version),
        'updated': _UPDATED,
        'links': links,
    }


class V21Controller(object):
    flavors = flavors.FlavorsController()
    servers = servers.ServersController()

    @wsgi.expose()
    def index(self):
        root_url = pecan.request.application_url.rstrip('/')
        doc = _version_document(root_url, [
            {'rel': 'self', 'href': root_url + '/v2.1/'},
            {'rel': 'describedby', 'type': 'text/html',
             'href': 'http://docs.openstack.org/'},
        ])
        doc['media-types'] = [{
            'base': 'application/json',
            'type': 'application/vnd.openstack.compute+json;version=2.1',
        }]
        return {'version': doc}


class ComputeRootController(object):

    @wsgi.expose()
    def index(self):
        root_url = pecan.request.application_url.rstrip('/')
        return {'versions': [_version_document(
            root_url, [{'rel': 'self', 'href': root_url + '/v2.1/'}])]}


pecan.route(V21Controller, 'os-server-groups',
            server_groups.ServerGroupsController())
pecan.route(ComputeRootController, 'v2.1', V21Controller())
