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

"""X-Compute-Request-ID on compute answers (not bare-metal ones), and the
extension list of /extensions as Nova 34 serves it."""

DEMO = {'X-Auth-Token': 'demo:demo'}


def test_compute_request_id_beside_openstack_request_id(api):
    resp = api.get('/compute/v2.1/flavors', headers=DEMO)
    req_id = resp.headers['X-OpenStack-Request-ID']
    assert req_id.startswith('req-')
    assert resp.headers['X-Compute-Request-ID'] == req_id
    # Errors and the unversioned root carry it too.
    missing = api.get('/compute/v2.1/servers/nope', headers=DEMO,
                      status=404)
    assert missing.headers['X-Compute-Request-ID'] == (
        missing.headers['X-OpenStack-Request-ID'])
    assert 'X-Compute-Request-ID' in api.get('/compute/').headers
    # The bare-metal API keeps Ironic's one header.
    bm = api.get('/baremetal/')
    assert 'X-OpenStack-Request-ID' in bm.headers
    assert 'X-Compute-Request-ID' not in bm.headers


def test_extensions_list_and_show(api):
    listed = api.get('/compute/v2.1/extensions', headers=DEMO).json[
        'extensions']
    aliases = [ext['alias'] for ext in listed]
    assert len(listed) == 99
    assert aliases == sorted(aliases)
    hosts = [ext for ext in listed if ext['name'] == 'Hosts']
    assert hosts == [{
        'alias': 'os-hosts', 'name': 'Hosts',
        'description': 'Admin-only host administration.', 'links': [],
        'namespace': 'http://docs.openstack.org/compute/ext/fake_xml',
        'updated': '2014-12-03T00:00:00Z'}]
    shown = api.get('/compute/v2.1/extensions/os-consoles',
                    headers=DEMO).json['extension']
    assert shown['alias'] == 'os-consoles'
    assert shown['name'] == 'Consoles'
    # Query parameters are ignored, whatever the microversion.
    api.get('/compute/v2.1/extensions?foo=1',
            headers=dict(DEMO, **{'OpenStack-API-Version': 'compute 2.86'}))
    missing = api.get('/compute/v2.1/extensions/OS-EXT-VIF-NET',
                      headers=DEMO, status=404)
    assert missing.json == {'itemNotFound': {
        'code': 404, 'message': 'The resource could not be found.'}}


def test_legacy_v2_lists_one_more(api):
    listed = api.get('/compute/v2/extensions', headers=DEMO).json[
        'extensions']
    assert len(listed) == 100
    aliases = [ext['alias'] for ext in listed]
    assert 'OS-EXT-VIF-NET' in aliases and aliases == sorted(aliases)
    assert api.get('/compute/v2/extensions/OS-EXT-VIF-NET',
                   headers=DEMO).json['extension']['name'] == (
        'ExtendedVIFNet')
