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

"""Node secrets on the write path: a refused update does not echo the
node, and a patch changes the stored node (never the masked view of it),
so masked secrets stay as they are stored.
"""

import pytest
import webtest

from nova_mini import context as nm_context
from nova_mini import objects
from nova_mini.tests.fixtures import builders

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


# What the API masks, stored: a patch of anything else must leave it as
# it is (the view masks it, the stored row does not).
DRIVER_INFO = {'ipmi_address': '10.0.0.9', 'ipmi_username': 'root',
               'ipmi_password': SECRET, 'ipmi_port': 623,
               'snmp_auth_key': 'auth-key-1', 'snmp_priv_key': 'priv-key-1',
               'redfish': {'password': 'nested-pw'}}
INSTANCE_INFO = {'image_source': 'c0ffee00-0000-4000-8000-000000000001',
                 'image_url': 'http://swift/tmp?temp_url_sig=abc',
                 'configdrive': {'meta_data': {'k': 'v'}},
                 'rescue_password': 'rescue-pw',
                 'hashed_rescue_password': '$5$salt$hash'}


@pytest.fixture
def admin(api):
    return nm_context.get_admin_context()


@pytest.fixture
def stored(admin):
    """Create node ``n`` with secrets; return a reader of its stored row."""
    builders.create_node(admin, 'n', owner='p-own', lessee='p-lease',
                         driver_info=dict(DRIVER_INFO),
                         instance_info=dict(INSTANCE_INFO))
    return lambda: objects.Node.get_by_name(admin, 'n')


def _patch(api, patch, token='admin:admin', status=200):
    headers = dict(HEADERS, **{'X-Auth-Token': token,
                               'X-OpenStack-Ironic-API-Version': '1.65'})
    response = api.patch_json('/baremetal/v1/nodes/n', patch,
                              headers=headers, expect_errors=True)
    assert response.status_int == status, response.text
    return response


@pytest.mark.parametrize('patch', [
    [{'op': 'replace', 'path': '/driver_info/ipmi_port', 'value': 624}],
    [{'op': 'add', 'path': '/instance_info/foo', 'value': 'bar'}],
    [{'op': 'remove', 'path': '/driver_info/ipmi_username'}],
    [{'op': 'remove', 'path': '/instance_info/image_source'}],
    [{'op': 'add', 'path': '/extra/a', 'value': 'b'}],
    [{'op': 'replace', 'path': '/description', 'value': 'd'}],
    [{'op': 'add', 'path': '/driver_info/redfish/address', 'value': 'x'}],
], ids=['driver_info-port', 'instance_info-add', 'driver_info-remove',
        'instance_info-remove', 'extra', 'description', 'nested-add'])
@pytest.mark.parametrize('token', ['admin:admin', 'alice:p-own'])
def test_patch_keeps_stored_secrets(api, stored, patch, token):
    _patch(api, patch, token=token)
    node = stored()
    for key in ('ipmi_password', 'snmp_auth_key', 'snmp_priv_key'):
        assert node.driver_info[key] == DRIVER_INFO[key]
    assert node.driver_info['redfish']['password'] == 'nested-pw'
    for key in ('image_url', 'configdrive', 'rescue_password',
                'hashed_rescue_password'):
        assert node.instance_info[key] == INSTANCE_INFO[key]


def test_patch_changes_only_what_it_names(api, stored):
    _patch(api, [{'op': 'replace', 'path': '/driver_info/ipmi_port',
                  'value': 624},
                 {'op': 'add', 'path': '/instance_info/foo', 'value': 1}])
    node = stored()
    assert node.driver_info == dict(DRIVER_INFO, ipmi_port=624)
    assert node.instance_info == dict(INSTANCE_INFO, foo=1)


def test_echoed_masks_keep_the_stored_secrets(api, stored):
    """A client that sends back what it read (the masks) changes
    nothing it did not mean to.
    """
    shown = api.get('/baremetal/v1/nodes/n', headers=dict(
        HEADERS, **{'X-OpenStack-Ironic-API-Version': '1.65'})).json
    assert shown['driver_info']['ipmi_password'] == '******'
    driver_info = dict(shown['driver_info'], ipmi_port=700)
    instance_info = dict(shown['instance_info'], foo='bar')
    _patch(api, [{'op': 'replace', 'path': '/driver_info',
                  'value': driver_info},
                 {'op': 'replace', 'path': '/instance_info',
                  'value': instance_info},
                 {'op': 'replace', 'path': '/driver_info/snmp_auth_key',
                  'value': '******'}])
    node = stored()
    assert node.driver_info == dict(DRIVER_INFO, ipmi_port=700)
    assert node.instance_info == dict(INSTANCE_INFO, foo='bar')


def test_new_secret_is_stored(api, stored):
    _patch(api, [{'op': 'replace', 'path': '/driver_info/ipmi_password',
                  'value': 'new-pw'}])
    assert stored().driver_info['ipmi_password'] == 'new-pw'
    assert stored().driver_info['snmp_auth_key'] == 'auth-key-1'


@pytest.mark.parametrize('patch', [
    [{'op': 'add', 'path': '/driver_info/bmc_password', 'value': '******'}],
    [{'op': 'replace', 'path': '/driver_info/ipmi_username',
      'value': '******'}],
    [{'op': 'add', 'path': '/driver_info/redfish/auth_token',
      'value': '******'}],
    [{'op': 'add', 'path': '/instance_info/users',
      'value': [{'name': 'u', 'password': '******'}]}],
], ids=['new-key', 'not-a-secret', 'new-nested', 'in-a-list'])
def test_mask_without_stored_secret_is_refused(api, stored, patch):
    before = stored()
    response = _patch(api, patch, status=400)
    assert '******' in response.json['error_message']
    after = stored()
    assert after.driver_info == before.driver_info
    assert after.instance_info == before.instance_info
    assert after.updated_at == before.updated_at


def test_lessee_patch_keeps_redacted_driver_info(api, stored):
    """The lessee sees driver_info redacted: its patch of extra must not
    store the redaction.
    """
    _patch(api, [{'op': 'add', 'path': '/extra/a', 'value': 'b'}],
           token='bob:p-lease')
    node = stored()
    assert node.driver_info == DRIVER_INFO
    assert node.extra == {'a': 'b'}


def test_patch_keeps_secrets_on_every_backend(api_fixture_factory, backend):
    api = webtest.TestApp(api_fixture_factory(backend=backend).app)
    admin = nm_context.get_admin_context()
    builders.create_node(admin, 'n', driver_info=dict(DRIVER_INFO),
                         instance_info=dict(INSTANCE_INFO))
    _patch(api, [{'op': 'replace', 'path': '/driver_info/ipmi_port',
                  'value': 624},
                 {'op': 'add', 'path': '/instance_info/foo', 'value': 1},
                 {'op': 'replace', 'path': '/instance_info/image_url',
                  'value': '******'}])
    node = objects.Node.get_by_name(admin, 'n')
    assert node.driver_info == dict(DRIVER_INFO, ipmi_port=624)
    assert node.instance_info == dict(INSTANCE_INFO, foo=1)


def test_secret_held_as_a_dict_is_masked_and_kept(api, admin):
    # oslo.utils walks into a dict held under a secret key and masks only
    # the secret keys inside it: {"ipmi_password": {"x": "pw"}} showed pw.
    builders.create_node(admin, 'n', driver_info={
        'ipmi_password': {'x': SECRET}, 'ipmi_port': 623})
    headers = dict(HEADERS, **{'X-OpenStack-Ironic-API-Version': '1.65'})
    shown = api.get('/baremetal/v1/nodes/n', headers=headers)
    assert SECRET not in shown.text
    assert shown.json['driver_info']['ipmi_password'] == '******'
    # What was shown, sent back with a change, keeps the stored secret.
    info = dict(shown.json['driver_info'], ipmi_port=624)
    _patch(api, [{'op': 'replace', 'path': '/driver_info', 'value': info}])
    stored = objects.Node.get_by_name(admin, 'n').driver_info
    assert stored == {'ipmi_password': {'x': SECRET}, 'ipmi_port': 624}
