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
reads none from the node, and only its clean steps change them: a
manual cleaning's ``bios.apply_configuration`` stores the settings it is
given, ``bios.factory_reset`` deletes them (objects/baremetal/bios_setting.py). A
node never cleaned with those steps has none, and every setting is not
found.
"""

import pecan
from pecan import rest

from nova_mini.api.baremetal import lookup
from nova_mini.api.baremetal import versions
from nova_mini.api.baremetal.views import base as view_base
from nova_mini.api.baremetal.views import nodes as node_views
from nova_mini.api import microversion
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import bios_setting
from nova_mini.policies.baremetal import nodes as policies

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
        req = pecan.request
        node = lookup.get_node(self.node_ident, policies.GET_BIOS)
        # Ironic's list links the settings below the node as named in the
        # URL, one setting below its uuid.
        return {'bios': [_setting(req, self.node_ident, row)
                         for row in bios_setting.get_all(req.ctxt, node.id)]}

    @wsgi.expose()
    @microversion.versioned(min_version=versions.BIOS_INTERFACE)
    @validation.query(_NO_QUERY)
    def get_one(self, setting_name):
        req = pecan.request
        node = lookup.get_node(self.node_ident, policies.GET_BIOS)
        row = bios_setting.get(req.ctxt, node.id, setting_name)
        if row is None:
            raise exception_baremetal.BIOSSettingNotFound(node=node.uuid,
                                                          name=setting_name)
        return {setting_name: _setting(req, node.uuid, row)}


def _setting(req, node_ident, row):
    """The body of one setting at 1.40 (the registry fields came later)."""
    view = node_views.NodeView(req)
    path = 'nodes/%s/bios/%s' % (node_ident, row.name)
    return {'created_at': view_base.timestamp(row.created_at),
            'updated_at': view_base.timestamp(row.updated_at),
            'name': row.name, 'value': row.value,
            'links': [{'href': view.link(path), 'rel': 'self'},
                      {'href': view.link(path, bookmark=True),
                       'rel': 'bookmark'}]}
