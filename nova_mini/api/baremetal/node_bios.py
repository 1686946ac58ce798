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

"""A node's BIOS settings: GET /nodes/{node_ident}/bios and
.../bios/{setting_name} (from 1.40).

Ironic lists the settings its BIOS interface cached; the fake interface
caches none, and only its ``apply_configuration`` clean step stores some.
nova_mini runs no cleaning (a node passes through no transitional
state), so no step stores any: every node's list is empty and every
setting is not found, as for an Ironic fake node never cleaned with that
step.
"""

from pecan import rest

from nova_mini.api.baremetal import utils
from nova_mini.api.baremetal import versions
from nova_mini.api import microversion
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import exception
from nova_mini.policies import nodes as policies

# Ironic takes no query parameter before 1.74 (fields=, detail=).
_NO_QUERY = {'type': 'object', 'properties': {},
             'additionalProperties': False}


class NodeBiosController(rest.RestController):
    """/nodes/{node_ident}/bios[/{setting_name}]."""

    def __init__(self, node_ident):
        self.node_ident = node_ident

    @wsgi.expose()
    @microversion.versioned(min_version=versions.BIOS_INTERFACE)
    @validation.query(_NO_QUERY)
    def get_all(self):
        utils.get_node(self.node_ident, policies.GET_BIOS)
        return {'bios': []}

    @wsgi.expose()
    @microversion.versioned(min_version=versions.BIOS_INTERFACE)
    @validation.query(_NO_QUERY)
    def get_one(self, setting_name):
        node = utils.get_node(self.node_ident, policies.GET_BIOS)
        raise exception.BIOSSettingNotFound(node=node.uuid,
                                            name=setting_name)
