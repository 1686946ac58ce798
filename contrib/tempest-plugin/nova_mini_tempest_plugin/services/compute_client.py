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

"""The compute API calls the plugin's tests make, each at the microversion
it names (``OpenStack-API-Version: compute X.Y``), each answer checked
against its response schema.
"""

import time

from oslo_serialization import jsonutils as json
from tempest.lib.common import rest_client
from tempest.lib import exceptions as lib_exc

from nova_mini_tempest_plugin.schemas import compute as schema


class NovaMiniComputeClient(rest_client.RestClient):

    def _headers(self, version):
        headers = self.get_headers()
        if version:
            headers['OpenStack-API-Version'] = 'compute %s' % version
        return headers

    def _call(self, method, url, version=None, body=None, expected=(200,)):
        payload = json.dumps(body) if body is not None else None
        resp, data = self.request(method, url, headers=self._headers(version),
                                  body=payload)
        self.expected_success(list(expected), resp.status)
        data = json.loads(data) if data else {}
        return resp, data

    def _checked(self, response_schema, resp, body):
        self.validate_response(response_schema, resp, body)
        return rest_client.ResponseBody(resp, body)

    # Flavors and their extra specs.

    def create_flavor(self, version='2.1', **flavor):
        resp, body = self._call('POST', 'flavors', version,
                                {'flavor': flavor})
        return self._checked(schema.flavor, resp, body)

    def delete_flavor(self, flavor_id):
        resp, body = self._call('DELETE', 'flavors/%s' % flavor_id,
                                expected=(202,))
        return rest_client.ResponseBody(resp, body)

    def set_extra_specs(self, flavor_id, extra_specs, version=None,
                        validation=None):
        url = 'flavors/%s/os-extra_specs' % flavor_id
        if validation is not None:
            url += '?validation=%s' % validation
        resp, body = self._call('POST', url, version,
                                {'extra_specs': extra_specs})
        return self._checked(schema.extra_specs, resp, body)

    def list_extra_specs(self, flavor_id):
        resp, body = self._call('GET', 'flavors/%s/os-extra_specs'
                                % flavor_id)
        return self._checked(schema.extra_specs, resp, body)

    # Servers.

    def create_server(self, version=None, **server):
        resp, body = self._call('POST', 'servers', version,
                                {'server': server}, expected=(202,))
        return self._checked(schema.create_server, resp, body)

    def show_server(self, server_id, version=None):
        resp, body = self._call('GET', 'servers/%s' % server_id, version)
        return self._checked(schema.server_at(version), resp, body)

    def delete_server(self, server_id):
        resp, body = self._call('DELETE', 'servers/%s' % server_id,
                                expected=(204,))
        return rest_client.ResponseBody(resp, body)

    def wait_for_server_status(self, server_id, status):
        """Poll until the server has ``status``; a server that ends in
        ERROR instead fails at once, with its fault.
        """
        deadline = time.monotonic() + self.build_timeout
        while True:
            server = self.show_server(server_id)['server']
            if server['status'] == status:
                return server
            if server['status'] == 'ERROR':
                raise lib_exc.TempestException(
                    'server %s went to ERROR: %s'
                    % (server_id, server.get('fault')))
            if time.monotonic() > deadline:
                raise lib_exc.TimeoutException(
                    'server %s still %s after %ss'
                    % (server_id, server['status'], self.build_timeout))
            time.sleep(self.build_interval)

    def wait_for_server_gone(self, server_id):
        deadline = time.monotonic() + self.build_timeout
        while True:
            try:
                self.show_server(server_id)
            except lib_exc.NotFound:
                return
            if time.monotonic() > deadline:
                raise lib_exc.TimeoutException(
                    'server %s not gone after %ss'
                    % (server_id, self.build_timeout))
            time.sleep(self.build_interval)
