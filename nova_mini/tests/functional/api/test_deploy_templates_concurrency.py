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

"""Deploy templates under dozens of concurrent clients of the whole WSGI
app, on every test backend: of the creates (or renames) to one name one
succeeds and the others get Ironic's 409, never a 5xx, and one template
of that name is stored, with the winner's steps.
"""

import threading

import pytest
import webtest

from nova_mini.tests.fixtures import threads

CLIENTS = 24
HEADERS = {'X-Auth-Token': 'admin:admin',
           'X-OpenStack-Ironic-API-Version': '1.55'}


@pytest.fixture
def api(api_fixture_factory, backend):
    return webtest.TestApp(api_fixture_factory(backend=backend).app)


def _steps(index):
    return [{'interface': 'bios', 'step': 'apply_configuration',
             'args': {'settings': [{'name': 'client', 'value': index}]},
             'priority': 10 + index}]


def _race(api, call):
    responses = {}
    lock = threading.Lock()

    def run(index):
        response = call(index)
        assert response.status_int < 500, response.text
        with lock:
            responses[index] = response

    assert threads.race(run, CLIENTS) == []
    return responses


def _outcome(responses, status):
    won = [index for index, r in responses.items()
           if r.status_int == status]
    lost = [r for r in responses.values() if r.status_int == 409]
    assert len(won) == 1
    assert len(lost) == CLIENTS - 1
    assert all('A deploy template with name CUSTOM_SAME already exists'
               in r.json['error_message'] for r in lost)
    return won[0]


def _stored(api):
    return api.get('/baremetal/v1/deploy_templates?detail=true',
                   headers=HEADERS).json['deploy_templates']


def test_one_create_of_a_name_wins(api):
    responses = _race(api, lambda index: api.post_json(
        '/baremetal/v1/deploy_templates',
        {'name': 'CUSTOM_SAME', 'steps': _steps(index)},
        headers=HEADERS, expect_errors=True))
    winner = _outcome(responses, 201)
    stored = _stored(api)
    assert len(stored) == 1
    assert stored[0]['name'] == 'CUSTOM_SAME'
    assert stored[0]['steps'] == _steps(winner)
    assert stored[0]['uuid'] == responses[winner].json['uuid']


def test_one_rename_to_a_name_wins(api):
    for index in range(CLIENTS):
        api.post_json('/baremetal/v1/deploy_templates',
                      {'name': 'CUSTOM_T%d' % index,
                       'steps': _steps(index)}, headers=HEADERS)
    responses = _race(api, lambda index: api.patch_json(
        '/baremetal/v1/deploy_templates/CUSTOM_T%d' % index,
        [{'op': 'replace', 'path': '/name', 'value': 'CUSTOM_SAME'}],
        headers=HEADERS, expect_errors=True))
    winner = _outcome(responses, 200)
    names = sorted(t['name'] for t in _stored(api))
    assert len(names) == CLIENTS
    assert names.count('CUSTOM_SAME') == 1
    same = api.get('/baremetal/v1/deploy_templates/CUSTOM_SAME',
                   headers=HEADERS).json
    assert same['steps'] == _steps(winner)
    assert 'CUSTOM_T%d' % winner not in names
