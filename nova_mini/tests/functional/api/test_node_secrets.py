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

"""A refused node update must not echo the node: it holds secrets."""

import pytest

HEADERS = {'X-Auth-Token': 'admin:admin',
           'X-OpenStack-Ironic-API-Version': '1.37'}
SECRET = 's3cret-pw'


@pytest.mark.parametrize('patch', [
    [{'op': 'add', 'path': '/name', 'value': 'bad name!'}],
    [{'op': 'add', 'path': '/instance_info/traits', 'value': 'a string'}],
    [{'op': 'add', 'path': '/driver_info', 'value': 5}],
    [{'op': 'add', 'path': '/properties', 'value': []}],
])
def test_refused_patch_does_not_echo_driver_info(api, patch):
    api.post_json('/baremetal/v1/nodes', {
        'name': 'n', 'driver': 'fake-hardware',
        'driver_info': {'ipmi_password': SECRET}}, headers=HEADERS)
    response = api.patch_json('/baremetal/v1/nodes/n', patch,
                              headers=HEADERS, expect_errors=True)
    assert response.status_int == 400
    assert SECRET not in response.text
    assert 'field /' in response.json['error_message']
