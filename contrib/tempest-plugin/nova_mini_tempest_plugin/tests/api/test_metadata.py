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

"""The metadata service as a booted server reads it: meta_data.json,
user data and vendordata, signed as the metadata proxy signs. With
``[nova_mini] vendordata_sample_target``, vendor_data2.json holds what the
sample vendordata service answers for the server under that key.
"""

import base64
import re

from tempest.lib import decorators

from nova_mini_tempest_plugin.services import metadata_client
from nova_mini_tempest_plugin.tests import base

CONF = base.CONF

# The keys of the sample vendordata service's answer
# (contrib/sample-vendordata-service, document.describe); join-token only
# when the sample has a join_secret.
SAMPLE_KEYS = {'instance-id', 'project-id', 'hostname', 'fqdn', 'greeting',
               'boot-roles'}
HEX_SHA256 = re.compile('^[0-9a-f]{64}$')


class MetadataTest(base.BaseNovaMiniTest):

    @classmethod
    def skip_checks(cls):
        super().skip_checks()
        if not CONF.nova_mini.metadata_shared_secret:
            raise cls.skipException('[nova_mini] metadata_shared_secret '
                                    'is not set')

    @classmethod
    def resource_setup(cls):
        super().resource_setup()
        cls.metadata = metadata_client.MetadataClient(
            CONF.nova_mini.metadata_url,
            CONF.nova_mini.metadata_shared_secret)

    def setUp(self):
        super().setUp()
        resource_class = base.custom_name('NMRC')
        self.create_node(resource_class)
        flavor = self.bare_metal_flavor(resource_class)
        self.user_data = b'#!/bin/sh\necho nova_mini\n'
        self.server = self.boot_server(
            flavor['id'], metadata={'role': 'tempest'},
            user_data=base64.b64encode(self.user_data).decode('ascii'))
        self.project = self.server['tenant_id']

    @decorators.idempotent_id('9d3e1b7a-5c2f-4a8e-b6d1-0c4f7a2e9b41')
    def test_meta_data_json(self):
        document = self.metadata.get_json(
            'openstack/latest/meta_data.json', self.server['id'],
            self.project)
        self.assertEqual(self.server['id'], document['uuid'])
        self.assertEqual(self.server['name'], document['name'])
        self.assertEqual(self.project, document['project_id'])
        self.assertEqual({'role': 'tempest'}, document['meta'])

    @decorators.idempotent_id('2f8a6c1d-7b3e-4d9a-a0c5-3e1b8f4d7a51')
    def test_user_data_and_vendordata(self):
        status, body = self.metadata.get('openstack/latest/user_data',
                                         self.server['id'], self.project)
        self.assertEqual((200, self.user_data), (status, body))
        vendordata = self.metadata.get_json(
            'openstack/latest/vendor_data2.json', self.server['id'],
            self.project)
        self.assertIsInstance(vendordata, dict)
        listing = self.metadata.get('openstack/latest', self.server['id'],
                                    self.project)[1].decode().split('\n')
        self.assertIn('vendor_data2.json', listing)
        target = CONF.nova_mini.vendordata_sample_target
        if target:
            self._check_sample(vendordata, target)

    def _check_sample(self, vendordata, target):
        """The sample's answer for this server: its ids, its host name
        (meta_data.json's, without [metadata] dhcp_domain), the fqdn in
        the sample's realm, the greeting, the roles of the token that
        booted it, and a join token when the sample gives one.
        """
        self.assertIn(target, vendordata)
        sample = dict(vendordata[target])
        join_token = sample.pop('join-token', None)
        if join_token is not None:
            self.assertRegex(join_token, HEX_SHA256)
        self.assertEqual(SAMPLE_KEYS, set(sample))
        meta = self.metadata.get_json('openstack/latest/meta_data.json',
                                      self.server['id'], self.project)
        hostname = sample['hostname']
        self.assertTrue(hostname)
        # meta_data.json's is the same name, with the domain if any.
        self.assertIn(meta['hostname'], (hostname, '%s.%s' % (
            hostname, meta['hostname'].split('.', 1)[-1])))
        roles = sample.pop('boot-roles')
        self.assertIsInstance(roles, list)
        self.assertEqual(sorted(set(roles)), roles)
        self.assertEqual({
            'instance-id': self.server['id'],
            'project-id': self.project,
            'hostname': hostname,
            'fqdn': '%s.%s' % (hostname,
                               CONF.nova_mini.vendordata_sample_realm),
            'greeting': 'Hello %s, from the nova_mini vendordata sample'
                        % hostname,
        }, sample)

    @decorators.idempotent_id('6c1e9a4f-2d7b-4b3e-8f5a-9a0d3c6e1b61')
    def test_wrong_signature_is_refused(self):
        status, body = self.metadata.get(
            'openstack/latest/meta_data.json', self.server['id'],
            self.project, signature='0' * 64)
        self.assertEqual(403, status)
        # Nothing of the server leaks in the refusal.
        self.assertNotIn(self.server['name'].encode(), body)
        self.assertNotIn(b'"uuid"', body)
