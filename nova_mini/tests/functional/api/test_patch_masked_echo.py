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

"""The bare-metal resources whose bodies mask or redact what they store
(deploy templates' step arguments, volume targets' properties): a client
that patches with what it read sends the masks back, and the stored
secrets stay. Each test reads the stored row.
"""

import pytest
import webtest

from nova_mini import context as nm_context
from nova_mini import objects
from nova_mini.tests.fixtures import builders

V1 = '/baremetal/v1'
STEPS = [{'interface': 'bios', 'step': 'apply_configuration',
          'args': {'settings': [], 'admin_password': 'bios-pw'},
          'priority': 10},
         {'interface': 'raid', 'step': 'delete_configuration',
          'args': {'token': 'raid-token'}, 'priority': 20}]
PROPERTIES = {'target_iqn': 'iqn.2026-11.org.example:t1',
              'auth_password': 'chap-pw'}
TARGET = '3c1e7f2a-9b4d-4e6a-8f1c-2d5b7a9e0c31'


@pytest.fixture
def app(api_fixture_factory):
    return webtest.TestApp(api_fixture_factory().app)


@pytest.fixture
def admin(app):
    return nm_context.get_admin_context()


def _patch(app, path, patch, version, token='admin:admin', status=200):
    response = app.patch_json(
        V1 + path, patch, expect_errors=True,
        headers={'X-Auth-Token': token,
                 'X-OpenStack-Ironic-API-Version': version})
    assert response.status_int == status, response.text
    return response


def _get(app, path, version, token='admin:admin'):
    return app.get(V1 + path, headers={
        'X-Auth-Token': token, 'X-OpenStack-Ironic-API-Version': version}).json


@pytest.fixture
def template(admin):
    objects.DeployTemplate(admin, name='CUSTOM_T', steps=STEPS).create()
    return lambda: objects.DeployTemplate.get_by_name(admin, 'CUSTOM_T')


def test_template_steps_sent_back_keep_their_secrets(app, template):
    steps = _get(app, '/deploy_templates/CUSTOM_T', '1.55')['steps']
    assert steps[0]['args']['admin_password'] == '******'
    # Sent back as read, reordered, one priority changed.
    steps[1]['priority'] = 30
    _patch(app, '/deploy_templates/CUSTOM_T',
           [{'op': 'replace', 'path': '/steps',
             'value': [steps[1], steps[0]]}], '1.55')
    stored = template().steps
    assert stored == [dict(STEPS[1], priority=30), STEPS[0]]


def test_template_step_args_patched_keep_the_others(app, template):
    _patch(app, '/deploy_templates/CUSTOM_T',
           [{'op': 'add', 'path': '/steps/0/args/settings',
             'value': [{'name': 'a', 'value': 'b'}]},
            {'op': 'replace', 'path': '/steps/1/args/token',
             'value': '******'}], '1.55')
    stored = template().steps
    assert stored[0]['args'] == {'settings': [{'name': 'a', 'value': 'b'}],
                                 'admin_password': 'bios-pw'}
    assert stored[1] == STEPS[1]


def test_template_mask_without_secret_is_refused(app, template):
    before = template()
    response = _patch(app, '/deploy_templates/CUSTOM_T',
                      [{'op': 'add', 'path': '/steps/-',
                        'value': {'interface': 'deploy', 'step': 'x',
                                  'args': {'password': '******'},
                                  'priority': 5}}],
                      '1.55', status=400)
    assert '******' in response.json['error_message']
    after = template()
    assert (after.steps, after.updated_at) == (before.steps,
                                               before.updated_at)


@pytest.fixture
def target(admin):
    node = builders.create_node(admin, 'n', owner='p-own',
                                power_state='power off')
    objects.VolumeTarget(admin, node_id=node.id, uuid=TARGET,
                         volume_type='iscsi', volume_id='vol-1',
                         boot_index=0, properties=dict(PROPERTIES)).create()
    return lambda: objects.VolumeTarget.get_by_uuid(admin, TARGET)


@pytest.mark.parametrize('token', ['admin:admin', 'alice:p-own'])
def test_target_properties_sent_back_keep_their_secrets(app, target, token):
    """The admin sees them masked, the owner's member redacted: either
    sending back what it read changes nothing.
    """
    path = '/volume/targets/' + TARGET
    shown = _get(app, path, '1.32', token)['properties']
    assert 'chap-pw' not in str(shown)
    _patch(app, path, [{'op': 'replace', 'path': '/properties',
                        'value': shown},
                       {'op': 'add', 'path': '/extra/a', 'value': 'b'}],
           '1.32', token=token)
    stored = target()
    assert (stored.properties, stored.extra) == (PROPERTIES, {'a': 'b'})


def test_target_property_mask_without_secret_is_refused(app, target):
    path = '/volume/targets/' + TARGET
    _patch(app, path, [{'op': 'add', 'path': '/properties/auth_username',
                        'value': '******'}], '1.32', status=400)
    _patch(app, path, [{'op': 'add', 'path': '/properties/portal',
                        'value': 'p'}], '1.32')
    assert target().properties == dict(PROPERTIES, portal='p')
