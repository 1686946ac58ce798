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

"""A node's traits: /nodes/{node_ident}/traits[/{trait}] (from 1.37).

Before 1.37 Ironic answers GET with 406, PUT with 405 and DELETE with 404,
and so does this controller.
"""

import pecan
from pecan import rest

from nova_mini.api.baremetal import lookup
from nova_mini.api.baremetal.schemas import node_traits as schema
from nova_mini.api.baremetal import versions
from nova_mini.api.baremetal.views import nodes as node_views
from nova_mini.api import microversion
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import exception
from nova_mini import objects
from nova_mini.policies.baremetal import node_traits as policies

_check_trait = validation.value_checker(schema.trait, 'trait')
_check_body = validation.value_checker(schema.set_traits, 'request body')


class NodeTraitsController(rest.RestController):
    """/nodes/{node_ident}/traits[/{trait}]: list, set, add and delete."""

    def __init__(self, node_ident):
        self.node_ident = node_ident

    @wsgi.expose()
    @microversion.versioned(min_version=versions.NODE_TRAITS,
                            refusal=exception.NotAcceptable)
    def get_all(self):
        node = lookup.get_node(self.node_ident, policies.LIST)
        return {'traits': node.traits.get_trait_names()}

    @wsgi.expose(status=204)
    @microversion.versioned(min_version=versions.NODE_TRAITS,
                            refusal=exception.MethodNotAllowedForVersion)
    def put(self, trait=None):
        req = pecan.request
        body = validation.request_json(req)
        if trait is None:
            if body is None:
                raise exception.Invalid(
                    'Add one trait with PUT /v1/nodes/<node>/traits/<trait> '
                    'and no body, or replace them all with PUT '
                    '/v1/nodes/<node>/traits and a body {"traits": [...]}.')
            _check_body(body)
        else:
            if body:
                raise exception.Invalid('No body should be provided when '
                                        'adding a trait.')
            _check_trait(trait)
        context = req.ctxt
        node = lookup.get_node(self.node_ident, policies.SET)
        if trait is None:
            objects.NodeTraitList.create(context, node.id, body['traits'],
                                         node_ident=node.uuid)
            return None
        objects.NodeTrait(context, node_id=node.id, trait=trait).create(
            node_ident=node.uuid)
        response = wsgi.json_response(None, status=204)
        response.location = node_views.NodeView(req).link(
            'nodes/%s/traits/%s' % (self.node_ident, trait))
        return response

    @wsgi.expose(status=204)
    @microversion.versioned(min_version=versions.NODE_TRAITS)
    def delete(self, trait=None):
        req = pecan.request
        context = req.ctxt
        node = lookup.get_node(self.node_ident, policies.DELETE)
        if trait is None:
            objects.NodeTraitList.destroy(context, node.id,
                                          node_ident=node.uuid)
        else:
            objects.NodeTrait.destroy(context, node.id, trait,
                                      node_ident=node.uuid)
