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

"""Extra spec validation (microversion 2.86): strict, permissive and
disabled, and what each stores.
"""

from tempest.lib import decorators
from tempest.lib import exceptions as lib_exc

from nova_mini_tempest_plugin.tests import base

VALIDATED = '2.86'


class ExtraSpecValidationTest(base.BaseNovaMiniTest):

    def setUp(self):
        super().setUp()
        self.flavor_id = self.create_flavor()['id']

    def _stored(self):
        return self.admin_compute.list_extra_specs(
            self.flavor_id)['extra_specs']

    def _refused(self, specs, validation=None, version=VALIDATED):
        exc = self.assertRaises(
            lib_exc.BadRequest, self.admin_compute.set_extra_specs,
            self.flavor_id, specs, version=version, validation=validation)
        return exc.resp_body['message']

    @decorators.idempotent_id('6b1c9a4e-1f0e-4c52-9d35-0f3e8a0c7d11')
    def test_valid_specs_are_stored(self):
        specs = {'hw:cpu_policy': 'dedicated', 'trait:HW_CPU_X86_AVX2':
                 'required', 'hw:numa_nodes': '1'}
        body = self.admin_compute.set_extra_specs(self.flavor_id, specs,
                                                  version=VALIDATED)
        self.assertEqual(specs, body['extra_specs'])
        self.assertEqual(specs, self._stored())

    @decorators.idempotent_id('0d7f3a52-7c1b-4c8e-a1a4-6f2f0b9a3e21')
    def test_strict_refuses_unknown_key_and_stores_nothing(self):
        message = self._refused({'hw:cpu_polcy': 'dedicated',
                                 'hw:numa_nodes': '1'})
        self.assertIn('hw:cpu_polcy', message)
        # The suggestion of the registered name close to the typo.
        self.assertIn('hw:cpu_policy', message)
        self.assertEqual({}, self._stored())

    @decorators.idempotent_id('a3e9d1c4-5b27-4f1e-8d0c-2c4b7f9e6a31')
    def test_strict_refuses_invalid_value(self):
        message = self._refused({'hw:cpu_policy': 'sometimes'},
                                validation='strict')
        self.assertIn('hw:cpu_policy', message)
        self.assertEqual({}, self._stored())

    @decorators.idempotent_id('f1b6c3d8-2e4a-4a7f-9c1e-3d5b8a0f2c41')
    def test_permissive_stores_unknown_keys_but_checks_values(self):
        body = self.admin_compute.set_extra_specs(
            self.flavor_id, {'vendor:thing': 'x'}, version=VALIDATED,
            validation='permissive')
        self.assertEqual({'vendor:thing': 'x'}, body['extra_specs'])
        self._refused({'hw:cpu_policy': 'sometimes'},
                      validation='permissive')
        self.assertEqual({'vendor:thing': 'x'}, self._stored())

    @decorators.idempotent_id('2c8e4f1a-9d3b-4e6c-b7a2-5f0d1c3e8b51')
    def test_disabled_stores_anything(self):
        specs = {'hw:cpu_policy': 'sometimes', 'vendor:thing': 'x'}
        self.admin_compute.set_extra_specs(
            self.flavor_id, specs, version=VALIDATED, validation='disabled')
        self.assertEqual(specs, self._stored())

    @decorators.idempotent_id('7e2a9c5d-3f1b-4d8e-a6c0-9b4f2e1d7c61')
    def test_unknown_mode_is_refused(self):
        message = self._refused({'hw:cpu_policy': 'dedicated'},
                                validation='lenient')
        self.assertIn('validation', message)
        self.assertEqual({}, self._stored())

    @decorators.idempotent_id('4d9b1e7c-6a2f-4c3e-8b5d-1f7a0c9e2d71')
    def test_mode_below_the_microversion_is_refused(self):
        self._refused({'hw:cpu_policy': 'dedicated'}, validation='strict',
                      version='2.85')
        self.assertEqual({}, self._stored())
