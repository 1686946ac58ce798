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

"""The volume root (from API 1.32): /volume links to the volume
connectors and targets; /nodes/{node_ident}/volume to a node's.
"""

import pecan
from pecan import rest

from nova_mini.api.baremetal import lookup
from nova_mini.api.baremetal.views import nodes as node_views
from nova_mini.api.baremetal import volume_connectors
from nova_mini.api.baremetal import volume_resources
from nova_mini.api.baremetal import volume_targets
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini.policies.baremetal import volumes as policies

_CHILDREN = {
    'connectors': volume_connectors.VolumeConnectorsController,
    'targets': volume_targets.VolumeTargetsController,
}
_NO_QUERY = {'type': 'object', 'additionalProperties': False}


class VolumeController(rest.RestController):
    """/volume, or /nodes/{node_ident}/volume with ``node_ident``."""

    def __init__(self, node_ident=None):
        self.node_ident = node_ident

    @wsgi.expose()
    @volume_resources.since_volume
    @validation.query(_NO_QUERY)
    def get_all(self):
        req = pecan.request
        # As Ironic, the rule is checked on no node (so on no project's
        # node: administrators only, by default), even below a node.
        req.ctxt.can(policies.GET, {'project_id': req.ctxt.project_id})
        if self.node_ident is None:
            path = 'volume/'
        else:
            lookup.get_node(self.node_ident)
            path = 'nodes/%s/volume/' % self.node_ident
        view = node_views.NodeView(req)

        def links(sub_path):
            return [{'href': view.link(sub_path), 'rel': 'self'},
                    {'href': view.link(sub_path, bookmark=True),
                     'rel': 'bookmark'}]
        return {'links': links(path),
                'connectors': links(path + 'connectors'),
                'targets': links(path + 'targets')}

    @pecan.expose()
    def _lookup(self, name, *remainder):
        if name in _CHILDREN:
            # Below 1.32 their handlers answer 404.
            return _CHILDREN[name](self.node_ident), remainder
        return None
