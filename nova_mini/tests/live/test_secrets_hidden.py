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

"""Secrets never appear in an answer or a log line.

A stack of its own runs every daemon with debug logging on PostgreSQL,
through a database URL holding a password of this run (a role made for
it), with the RabbitMQ transport URL and its password, Keystone service
credentials, Keystone tokens and a metadata shared secret. The test gives a node
driver_info secrets (by create and by patch, and in a patch that is
refused), moves the node to available, boots a server on it through the
scheduler, reads its metadata with a good and a bad signature and deletes
it; then neither any answer (body and headers) nor any line of the
daemons' logs holds a secret.
"""

import secrets
import uuid

import pytest
import requests

from nova_mini.metadata import identity
from nova_mini.tests.harness import postgresql
import nova_mini_deploy
from nova_mini_deploy import glance as glance_harness

pytestmark = [pytest.mark.live, pytest.mark.postgresql]

RUN = uuid.uuid4().hex[:8]
RESOURCE_CLASS = 'secrets-%s' % RUN
FLAVOR = 'secrets-%s' % RUN
BAREMETAL = {'X-OpenStack-Ironic-API-Version': '1.65'}
# driver_info secrets, as Ironic's drivers name them.
NODE_PASSWORD = 'ipmi-pw-%s' % secrets.token_hex(8)
NODE_NEW_PASSWORD = 'ipmi-pw2-%s' % secrets.token_hex(8)
NODE_KEY = 'snmp-key-%s' % secrets.token_hex(8)
NODE_TOKEN = 'token-%s' % secrets.token_hex(8)


class _Database(object):
    """A PostgreSQL role with a password of this run, owning a database."""

    def __init__(self):
        self.admin = postgresql.admin_url()
        self.role = 'nm_secrets_%s' % RUN
        self.password = 'db-pw-%s' % secrets.token_hex(12)
        self.name = 'nova_mini_secrets_%s' % RUN
        self._sql("CREATE ROLE %s LOGIN PASSWORD '%s'"
                  % (self.role, self.password))
        self._sql('CREATE DATABASE %s OWNER %s' % (self.name, self.role))
        self.url = 'postgresql+psycopg2://%s:%s@%s:%d/%s' % (
            self.role, self.password, postgresql.HOST, postgresql.PORT,
            self.name)

    def _sql(self, statement):
        import psycopg2
        conn = psycopg2.connect(self.admin.replace(
            'postgresql+psycopg2://', 'postgresql://'), connect_timeout=5)
        conn.autocommit = True
        try:
            with conn.cursor() as cur:
                cur.execute(statement)
        finally:
            conn.close()

    def drop(self):
        self._sql('DROP DATABASE IF EXISTS %s WITH (FORCE)' % self.name)
        self._sql('DROP ROLE IF EXISTS %s' % self.role)


@pytest.fixture(scope='module')
def secret_stack(tmp_path_factory):
    database = _Database()
    name = 'nova_mini_secrets_%s' % RUN
    st = nova_mini_deploy.Stack(str(tmp_path_factory.mktemp('secrets')),
                                exchange=name, virtual_host=name,
                                host='nova-mini-secrets-%s' % RUN,
                                debug=True, fast_passwords=True)
    st.nova.extra_sections = {'database': {'connection': database.url}}
    try:
        st.up()
        yield st, database
    finally:
        st.down()
        database.drop()


class Client(object):
    """requests, remembering every answer (status line, headers, body)."""

    def __init__(self):
        self.answers = []
        self.tokens = set()

    def call(self, method, url, expected, **kwargs):
        token = kwargs.get('headers', {}).get('X-Auth-Token')
        if token:
            self.tokens.add(token)
        response = requests.request(method, url, timeout=60, **kwargs)
        self.answers.append('%s %s -> %d %r\n%s' % (
            method, url, response.status_code, dict(response.headers),
            response.text))
        assert response.status_code == expected, (method, url,
                                                  response.text)
        return response


def _boot_on_a_node(st, client):
    admin = {'X-Auth-Token': st.token('admin')}
    demo = {'X-Auth-Token': st.token('demo')}
    nodes = st.nova.baremetal_url + '/v1/nodes'
    node = client.call('POST', nodes, 201, headers=dict(admin, **BAREMETAL),
                       json={
        'name': 'secret-node-%s' % RUN, 'driver': 'fake-hardware',
        'resource_class': RESOURCE_CLASS,
        'properties': {'cpus': 4, 'memory_mb': 4096, 'local_gb': 50},
        'driver_info': {'ipmi_username': 'root',
                        'ipmi_password': NODE_PASSWORD,
                        'snmp_priv_key': NODE_KEY,
                        'redfish': {'auth_token': NODE_TOKEN}}}).json()
    assert node['driver_info']['ipmi_password'] == '******'
    url = nodes + '/' + node['uuid']
    headers = dict(admin, **BAREMETAL)
    client.call('PATCH', url, 200, headers=headers, json=[
        {'op': 'replace', 'path': '/driver_info/ipmi_password',
         'value': NODE_NEW_PASSWORD}])
    # Refused: the answer names the field, not the node's documents.
    client.call('PATCH', url, 400, headers=headers, json=[
        {'op': 'add', 'path': '/name', 'value': 'not a name!'},
        {'op': 'add', 'path': '/driver_info/ipmi_password',
         'value': NODE_PASSWORD}])
    client.call('GET', url, 200, headers=headers)
    client.call('GET', nodes + '/detail', 200, headers=headers)
    client.call('GET', url + '/validate', 200, headers=headers)
    for target in ('manage', 'provide'):
        client.call('PUT', url + '/states/provision', 202, headers=headers,
                    json={'target': target})
    compute = st.nova.compute_url
    client.call('POST', compute + '/flavors', 200, headers=admin, json={
        'flavor': {'name': FLAVOR, 'id': FLAVOR, 'ram': 4096, 'vcpus': 4,
                   'disk': 50}})
    client.call('POST', compute + '/flavors/%s/os-extra_specs' % FLAVOR,
                200, headers=admin, json={'extra_specs': {
                    'resources:CUSTOM_%s' % RESOURCE_CLASS.upper().replace(
                        '-', '_'): '1',
                    'resources:VCPU': '0', 'resources:MEMORY_MB': '0',
                    'resources:DISK_GB': '0'}})
    server = client.call('POST', compute + '/servers', 202, headers=demo,
                         json={'server': {
                             'name': 'secret-server', 'flavorRef': FLAVOR,
                             'imageRef': glance_harness.CIRROS_ID,
                             'adminPass': 'admin-pass-%s' % RUN}}).json()
    server_id = server['server']['id']
    for _attempt in range(300):
        shown = client.call('GET', compute + '/servers/' + server_id, 200,
                            headers=demo).json()['server']
        if shown['status'] != 'BUILD':
            break
    assert shown['status'] == 'ACTIVE', shown
    client.call('GET', url, 200, headers=headers)
    return server_id, shown['tenant_id']


def _metadata(st, client, server_id, project_id):
    url = st.nova.metadata_url + '/openstack/latest/meta_data.json'
    signed = {identity.INSTANCE_ID: server_id,
              identity.TENANT_ID: project_id,
              identity.SIGNATURE: identity.sign(st.metadata_secret,
                                                server_id)}
    client.call('GET', url, 200, headers=signed)
    forged = dict(signed, **{identity.SIGNATURE: 'f' * 64})
    client.call('GET', url, 403, headers=forged)


def test_no_secret_in_answers_or_logs(secret_stack):
    st, database = secret_stack
    client = Client()
    server_id, project_id = _boot_on_a_node(st, client)
    _metadata(st, client, server_id, project_id)
    client.call('DELETE', st.nova.compute_url + '/servers/' + server_id,
                204, headers={'X-Auth-Token': st.token('demo')})

    hidden = {
        'node ipmi_password': NODE_PASSWORD,
        'node new ipmi_password': NODE_NEW_PASSWORD,
        'node snmp_priv_key': NODE_KEY,
        'node nested auth_token': NODE_TOKEN,
        'metadata_proxy_shared_secret': st.metadata_secret,
        'database password': database.password,
        'transport_url password': ':%s@' % st.rabbit.password,
        'keystone_authtoken password': st.passwords['nova'],
    }
    # The callers' Keystone tokens are bearer secrets too.
    for number, token in enumerate(sorted(client.tokens)):
        hidden['token %d' % number] = token
    for answer in client.answers:
        for what, value in hidden.items():
            assert value not in answer, (what, answer)
    # The create answer gives the server's adminPass back, as Nova's; the
    # logs must not hold it.
    hidden['server adminPass'] = 'admin-pass-%s' % RUN
    logs = {}
    for name in sorted(st.nova.processes):
        with open(st.nova.processes[name].log_path) as stream:
            logs[name] = stream.read()
    # Debug logging was on, and the daemons did the work.
    assert set(logs) >= {'nova-mini-api', 'nova-mini-scheduler',
                         'nova-mini-metadata'}, sorted(logs)
    for name, text in logs.items():
        assert ' DEBUG ' in text, name
        for what, value in hidden.items():
            lines = [line for line in text.splitlines() if value in line]
            assert not lines, (name, what, lines[:3])
