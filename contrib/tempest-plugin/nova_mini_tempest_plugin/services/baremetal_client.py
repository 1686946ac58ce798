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

"""The bare-metal API calls of the plugin's tests: nodes, their provision
states and their traits, at an Ironic microversion the call names.
"""

import time
import urllib.parse

from oslo_serialization import jsonutils as json
from tempest.lib.common import rest_client
from tempest.lib import exceptions as lib_exc

from nova_mini_tempest_plugin.schemas import baremetal as schema

# Traits are served from 1.37.
TRAITS_VERSION = '1.37'


class NovaMiniBaremetalClient(rest_client.RestClient):

    def _call(self, method, url, body=None, expected=(200,),
              version=TRAITS_VERSION):
        headers = self.get_headers()
        headers['X-OpenStack-Ironic-API-Version'] = version
        payload = json.dumps(body) if body is not None else None
        resp, data = self.request(method, 'v1/' + url, headers=headers,
                                  body=payload)
        self.expected_success(list(expected), resp.status)
        return resp, json.loads(data) if data else {}

    def create_node(self, **node):
        resp, body = self._call('POST', 'nodes', node, expected=(201,))
        self.validate_response(schema.node, resp, body)
        return rest_client.ResponseBody(resp, body)

    def show_node(self, node_ident):
        resp, body = self._call('GET', 'nodes/%s' % node_ident)
        self.validate_response(schema.node, resp, body)
        return rest_client.ResponseBody(resp, body)

    def list_nodes(self, **filters):
        url = 'nodes'
        if filters:
            url += '?' + urllib.parse.urlencode(filters)
        resp, body = self._call('GET', url)
        self.validate_response(schema.node_list, resp, body)
        return rest_client.ResponseBody(resp, body)

    def delete_node(self, node_ident):
        resp, body = self._call('DELETE', 'nodes/%s' % node_ident,
                                expected=(204,))
        return rest_client.ResponseBody(resp, body)

    def set_provision_state(self, node_ident, target):
        resp, body = self._call('PUT', 'nodes/%s/states/provision'
                                % node_ident, {'target': target},
                                expected=(202,))
        return rest_client.ResponseBody(resp, body)

    def wait_for_provision_state(self, node_ident, state):
        deadline = time.monotonic() + self.build_timeout
        while True:
            node = self.show_node(node_ident)
            if node['provision_state'] == state:
                return node
            if time.monotonic() > deadline:
                raise lib_exc.TimeoutException(
                    'node %s still %s after %ss' % (
                        node_ident, node['provision_state'],
                        self.build_timeout))
            time.sleep(self.build_interval)

    def list_traits(self, node_ident):
        resp, body = self._call('GET', 'nodes/%s/traits' % node_ident)
        self.validate_response(schema.traits, resp, body)
        return rest_client.ResponseBody(resp, body)

    def set_traits(self, node_ident, traits):
        resp, body = self._call('PUT', 'nodes/%s/traits' % node_ident,
                                {'traits': traits}, expected=(204,))
        return rest_client.ResponseBody(resp, body)

    def add_trait(self, node_ident, trait):
        resp, body = self._call('PUT', 'nodes/%s/traits/%s'
                                % (node_ident, trait), expected=(204,))
        return rest_client.ResponseBody(resp, body)

    def remove_trait(self, node_ident, trait):
        resp, body = self._call('DELETE', 'nodes/%s/traits/%s'
                                % (node_ident, trait), expected=(204,))
        return rest_client.ResponseBody(resp, body)
