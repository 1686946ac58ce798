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

"""Dynamic vendordata end to end, with the real Keystone of the stack.

A server is booted through the compute API as user demo; metadata daemons
of this module (beside the stack's own) serve StaticJSON and DynamicJSON,
the targets being nova-mini-vendordata-sample services behind
keystonemiddleware auth_token; the server's vendor_data2.json is read as
Neutron's metadata proxy reads it (signed identity headers).

* the metadata service gets a real token of the ``nova`` service user
  ([vendordata_dynamic_auth]), the sample validates it with Keystone,
  checks its roles and answers: ``static`` and ``sample`` hold the
  expected documents, and a second read is served from the cache;
* a target that requires a role the nova user lacks answers 403: its key
  is left out, the others stay;
* with a wrong token the sample answers 401; with a wrong password no
  token is had at all: either way the key is left out (static stays) and
  the metadata service logs a warning naming the target;
* an answer past its max-age is revalidated with its ETag (304);
* ``nova-mini-manage metadata show`` prints what the server reads.
"""

import hashlib
import hmac
import json
import time
import uuid

import pytest
import requests

from nova_mini.tests.live import helpers
from nova_mini.tests.live import test_metadata as md
from nova_mini_deploy import nova
from nova_mini_deploy import util
from nova_mini_deploy import vendordata_sample

pytestmark = pytest.mark.live

RUN = uuid.uuid4().hex[:6]
SECRET = 'vendordata-proxy-secret-%s' % RUN
JOIN_SECRET = 'join-secret-%s' % RUN
STATIC = {'cloud-name': 'nova_mini live tests', 'run': RUN,
          'ntp': ['ntp1.example.org', 'ntp2.example.org']}
VENDOR_DATA2 = '/openstack/latest/vendor_data2.json'


def _keystone(stack, **extra):
    return dict({'auth_url': stack.keystone.auth_url, 'username': 'nova',
                 'password': stack.passwords['nova']}, **extra)


@pytest.fixture(scope='module')
def samples(stack):
    """Sample services validating tokens with the stack's Keystone:
    ``sample`` (default roles: admin or service), ``picky`` (a role
    nobody has) and ``brief`` (max-age=1).
    """
    started = {
        'sample': vendordata_sample.VendordataSample(
            stack.nova, name='vendordata-sample-%s' % RUN,
            keystone=_keystone(stack),
            options={'cache_max_age': 300, 'join_secret': JOIN_SECRET,
                     'realm': 'live.example'}),
        'picky': vendordata_sample.VendordataSample(
            stack.nova, name='vendordata-picky-%s' % RUN,
            keystone=_keystone(stack),
            options={'allowed_roles': 'vendordata-reader-%s' % RUN}),
        'brief': vendordata_sample.VendordataSample(
            stack.nova, name='vendordata-brief-%s' % RUN,
            keystone=_keystone(stack), options={'cache_max_age': 1}),
    }
    for sample in started.values():
        sample.start()
    yield started
    for sample in started.values():
        assert sample.stop() == 0, 'the sample did not exit 0 on SIGTERM'


@pytest.fixture(scope='module')
def static_file(stack):
    path = '%s/vendordata-static-%s.json' % (stack.nova.etc_dir, RUN)
    with open(path, 'w') as f:
        json.dump(STATIC, f)
    return path


@pytest.fixture(scope='module')
def start_metadata(stack, samples, static_file):
    """``start(label, auth, targets) -> (root URL, extra config path,
    process)``: a nova-mini-metadata of this module with StaticJSON and
    DynamicJSON, ``auth`` as [vendordata_dynamic_auth].
    """
    started = []

    def start(label, auth, targets=('sample', 'picky')):
        name = 'nova-mini-metadata-%s-%s' % (label, RUN)
        port = util.free_port()
        extra = stack.nova.write_extra_config(name, {
            'metadata': {'bind_port': port, 'workers': 1,
                         'metadata_proxy_shared_secret': SECRET},
            'api': {
                'vendordata_providers': 'StaticJSON,DynamicJSON',
                'vendordata_jsonfile_path': static_file,
                'vendordata_dynamic_targets': ','.join(
                    '%s@%s' % (target, samples[target].url)
                    for target in targets),
                'vendordata_dynamic_read_timeout': 10,
            },
            'vendordata_dynamic_auth': auth,
        })
        proc = stack.nova.start(nova.METADATA, name=name, port=port,
                                config_files=[stack.nova.conf_path, extra])
        started.append(name)
        return 'http://%s:%d' % (util.LOCALHOST, port), extra, proc

    yield start
    for name in started:
        assert stack.nova.stop(name, timeout=30) == 0


def _password_auth(stack, password=None):
    return {'auth_type': 'password', 'auth_url': stack.keystone.auth_url,
            'username': 'nova',
            'password': password or stack.passwords['nova'],
            'project_name': 'service', 'user_domain_name': 'Default',
            'project_domain_name': 'Default'}


@pytest.fixture(scope='module')
def server(stack):
    flavor = helpers.make_flavor(stack)
    server = helpers.boot(stack, flavor, 'Vendor Data_%s' % RUN,
                          metadata={'role': 'db'})
    yield server
    helpers.delete(stack, server['id'])


def _read(root, server, path=VENDOR_DATA2):
    response = requests.get(root + path, timeout=60, headers=md.signed_headers(
        SECRET, server['id'], server['tenant_id']))
    assert response.status_code == 200, response.text
    assert response.headers['Content-Type'].startswith('application/json')
    return response.json()


def _log(proc):
    with open(proc.log_path, errors='replace') as f:
        return f.read()


def test_sample_checks_tokens_and_roles_with_keystone(stack, samples):
    url = samples['sample'].url
    body = {'instance-id': str(uuid.uuid4()), 'project-id': 'p-%s' % RUN}
    response = requests.post(url, json=body, timeout=30)
    assert response.status_code == 401
    response = requests.post(url, json=body, timeout=30,
                             headers={'X-Auth-Token': 'not-a-token'})
    assert response.status_code == 401
    response = requests.post(url, json=body, timeout=30,
                             headers={'X-Auth-Token': stack.token('demo')})
    assert response.status_code == 403
    assert response.json()['error']['message'] == (
        'Reading vendordata requires one of the roles: admin, service.')
    response = requests.post(url, json=body, timeout=30,
                             headers={'X-Auth-Token': stack.token('admin')})
    assert response.status_code == 200, response.text
    assert response.json()['instance-id'] == body['instance-id']
    assert response.headers['Cache-Control'] == 'max-age=300'
    assert 'for admin: 200' in _log(stack.nova.processes[
        samples['sample'].name])


def test_vendordata_with_a_service_token(stack, samples, start_metadata,
                                         server):
    root, _extra, proc = start_metadata('vd', _password_auth(stack))
    sample = samples['sample']
    document = _read(root, server)
    join_token = hmac.new(
        JOIN_SECRET.encode(),
        ('%s/%s' % (server['tenant_id'], server['id'])).encode(),
        hashlib.sha256).hexdigest()
    hostname = 'vendor-data-%s' % RUN
    boot_roles = document['sample'].pop('boot-roles')
    assert 'member' in boot_roles
    assert document == {
        'static': STATIC,
        'sample': {
            'instance-id': server['id'],
            'project-id': server['tenant_id'],
            'hostname': hostname,
            'fqdn': '%s.live.example' % hostname,
            'greeting': 'Hello %s, from the nova_mini vendordata sample'
                        % hostname,
            'join-token': join_token,
        },
    }
    # picky requires a role the nova user lacks: 403, key left out.
    log = _log(proc)
    assert 'Vendordata target picky (%s) failed for instance %s: HTTP 403' \
        % (samples['picky'].url, server['id']) in log
    # The sample saw the nova service user's token, once: the second read
    # comes from the metadata service's cache (max-age=300).
    assert sample.calls(server['id']) == 1
    assert 'Vendordata of instance %s (project %s) for nova: 200' % (
        server['id'], server['tenant_id']) in _log(
            stack.nova.processes[sample.name])
    again = _read(root, server)
    again['sample'].pop('boot-roles')
    assert again == document
    assert sample.calls(server['id']) == 1
    # vendor_data.json is the static document alone.
    assert _read(root, server, '/openstack/latest/vendor_data.json') == (
        STATIC)


def test_stale_vendordata_is_revalidated(stack, samples, start_metadata,
                                         server):
    # max-age=1: the second read, 1.5 s later, revalidates with the ETag;
    # the sample answers 304 and the cached document is served.
    root, _extra, _proc = start_metadata('reval', _password_auth(stack),
                                         targets=('brief',))
    brief = samples['brief']
    first = _read(root, server)
    assert first['brief']['instance-id'] == server['id']
    assert brief.calls(server['id']) == 1
    time.sleep(1.5)     # the behaviour under test: the entry goes stale
    assert _read(root, server) == first
    assert brief.calls(server['id']) == 2
    log = _log(stack.nova.processes[brief.name])
    answers = [line.rsplit(': ', 1)[1] for line in log.splitlines()
               if 'Vendordata of instance %s' % server['id'] in line]
    assert answers == ['200', '304']


@pytest.mark.parametrize('label, auth, reason', [
    # A token Keystone never issued: the sample's auth_token answers 401.
    ('badtoken', {'auth_type': 'admin_token', 'endpoint': 'http://unused',
                  'token': 'not-a-token-%s' % RUN}, 'HTTP 401'),
    # A wrong password: Keystone refuses the token, the target is not
    # called.
    ('badpassword', None, '(HTTP 401)'),
])
def test_wrong_service_credentials_leave_the_key_out(
        stack, samples, start_metadata, server, label, auth, reason):
    auth = auth or _password_auth(stack, password='wrong-%s' % RUN)
    root, _extra, proc = start_metadata(label, auth, targets=('sample',))
    sample = samples['sample']
    calls = sample.calls(server['id'])
    assert _read(root, server) == {'static': STATIC}
    log = _log(proc)
    line = [line for line in log.splitlines()
            if 'Vendordata target sample (%s) failed for instance %s'
            % (sample.url, server['id']) in line]
    assert line and reason in line[0], log[-3000:]
    # No answer from the sample: nothing new in its log of answers.
    assert sample.calls(server['id']) == calls
    secret = auth.get('password') or auth['token']
    assert secret not in log


def test_manage_metadata_show(stack, start_metadata, server):
    root, extra, _proc = start_metadata('manage', _password_auth(stack),
                                        targets=('sample',))
    files = [stack.nova.conf_path, extra]
    expected = _read(root, server)
    # By id, from [metadata] bind_host/bind_port of the config files.
    shown = stack.nova.manage('metadata', 'show', server['id'],
                              config_files=files)
    printed = json.loads(shown.stdout)
    assert printed['static'] == STATIC
    assert printed['sample']['join-token'] == expected['sample'][
        'join-token']
    # By name, another path, an explicit URL.
    shown = stack.nova.manage('metadata', 'show', server['name'], '--path',
                              '/openstack/latest/meta_data.json', '--url',
                              root, config_files=files)
    meta = json.loads(shown.stdout)
    assert (meta['uuid'], meta['meta']) == (server['id'], {'role': 'db'})
    # Errors: one line on stderr, exit status 1.
    missing = stack.nova.manage('metadata', 'show', 'no-such-%s' % RUN,
                                config_files=files, check=False)
    assert missing.returncode == 1
    assert missing.stderr.strip().splitlines()[-1] == (
        'No server with the id or name no-such-%s.' % RUN)
    not_found = stack.nova.manage('metadata', 'show', server['id'],
                                  '--path', 'latest/nothing-here',
                                  config_files=files, check=False)
    assert not_found.returncode == 1
    assert 'GET %s/openstack/latest/nothing-here: 404' % root in (
        not_found.stderr)
