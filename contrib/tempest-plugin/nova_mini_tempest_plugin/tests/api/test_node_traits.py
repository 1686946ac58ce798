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

"""Node traits: the set, single traits, the 50-trait limit, names that
are not traits, and node lists filtered by traits.
"""

from tempest.lib import decorators
from tempest.lib import exceptions as lib_exc

from nova_mini_tempest_plugin.tests import base

LIMIT = 50


class NodeTraitsTest(base.BaseNovaMiniTest):

    def setUp(self):
        super().setUp()
        self.resource_class = base.custom_name('nmrc')
        node = self.admin_baremetal.create_node(
            driver=base.CONF.nova_mini.node_driver,
            resource_class=self.resource_class)
        self.node = node['uuid']
        self.addCleanup(self.admin_baremetal.delete_node, self.node)
        self.gold = base.custom_name('CUSTOM_GOLD')
        self.fast = base.custom_name('CUSTOM_FAST')

    def _traits(self, node=None):
        return self.admin_baremetal.list_traits(node or self.node)['traits']

    @decorators.idempotent_id('3f5a8c1e-2b7d-4e9a-9c6f-0d1b4e7a2c81')
    def test_set_add_remove(self):
        self.admin_baremetal.set_traits(self.node, [self.gold,
                                                    'HW_CPU_X86_AVX2'])
        self.assertEqual(sorted([self.gold, 'HW_CPU_X86_AVX2']),
                         self._traits())
        self.admin_baremetal.add_trait(self.node, self.fast)
        self.admin_baremetal.add_trait(self.node, self.fast)  # idempotent
        self.assertEqual(sorted([self.gold, self.fast, 'HW_CPU_X86_AVX2']),
                         self._traits())
        self.admin_baremetal.remove_trait(self.node, self.gold)
        self.assertEqual(sorted([self.fast, 'HW_CPU_X86_AVX2']),
                         self._traits())
        self.assertIn(self.fast,
                      self.admin_baremetal.show_node(self.node)['traits'])

    @decorators.idempotent_id('8a1d4f7c-5e2b-4c9a-b3e6-7f0a2d5c8e91')
    def test_removing_a_missing_trait_is_404(self):
        self.assertRaises(lib_exc.NotFound, self.admin_baremetal.remove_trait,
                          self.node, self.gold)

    @decorators.idempotent_id('c6e2b9a4-1d7f-4a3c-8e5b-2a9f6c1d4e01')
    def test_invalid_trait_says_what_a_trait_is(self):
        self.admin_baremetal.set_traits(self.node, [self.gold])
        exc = self.assertRaises(lib_exc.BadRequest,
                                self.admin_baremetal.set_traits, self.node,
                                [self.fast, 'custom_lower'])
        self.assertIn('CUSTOM_', str(exc.resp_body))
        self.assertEqual([self.gold], self._traits())

    @decorators.idempotent_id('5b8f1c3e-7a2d-4e6b-9f0c-4d1a7e3b9c11')
    def test_fifty_traits_at_most(self):
        traits = ['CUSTOM_T%02d' % index for index in range(LIMIT)]
        self.admin_baremetal.set_traits(self.node, traits)
        self.assertEqual(traits, self._traits())
        self.assertRaises(lib_exc.BadRequest, self.admin_baremetal.add_trait,
                          self.node, 'CUSTOM_ONE_TOO_MANY')
        self.assertRaises(lib_exc.BadRequest, self.admin_baremetal.set_traits,
                          self.node, traits + ['CUSTOM_ONE_TOO_MANY'])
        self.assertEqual(traits, self._traits())

    @decorators.idempotent_id('e9c3a7d1-4f2b-4b8e-a5c6-1e7d0f3a9b21')
    def test_node_lists_filter_by_traits(self):
        other = self.admin_baremetal.create_node(
            driver=base.CONF.nova_mini.node_driver,
            resource_class=self.resource_class)['uuid']
        self.addCleanup(self.admin_baremetal.delete_node, other)
        self.admin_baremetal.set_traits(self.node, [self.gold, self.fast])
        self.admin_baremetal.set_traits(other, [self.gold])

        def listed(**filters):
            nodes = self.admin_baremetal.list_nodes(
                resource_class=self.resource_class, **filters)['nodes']
            return sorted(node['uuid'] for node in nodes)

        self.assertEqual(sorted([self.node, other]), listed(traits=self.gold))
        self.assertEqual([self.node],
                         listed(traits='%s,%s' % (self.gold, self.fast)))
        self.assertEqual([other], listed(**{'not-traits': self.fast}))
        either = '%s,%s' % (self.fast, self.gold)
        self.assertEqual(sorted([self.node, other]),
                         listed(**{'traits-any': either}))
