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
