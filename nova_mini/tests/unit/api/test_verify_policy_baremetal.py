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

"""The bare-metal API's route table (tests/fixtures/policy_routes.py) is
exactly the operations the baremetal policies document, each route with
the rule that documents it (the twin of test_verify_policy.py for
/baremetal); the functional test_verify_policy_baremetal.py checks that
each route enforces its rule.
"""

from nova_mini import policies
from nova_mini.tests.fixtures import policy_routes

ROUTES = (policy_routes.BAREMETAL_ROUTES +
          policy_routes.ALLOCATION_ROUTES + policy_routes.VOLUME_ROUTES)


def _baremetal_rules():
    return [rule for rule in policies.list_rules()
            if rule.name.startswith('baremetal:')]


def test_routes_are_the_documented_operations():
    documented = {(op['method'], op['path'])
                  for rule in _baremetal_rules() for op in rule.operations}
    assert {(method, doc) for method, doc, *_rest in ROUTES} == documented


def test_each_route_checks_the_rule_documenting_it():
    by_name = {rule.name: rule for rule in _baremetal_rules()}
    for method, doc, rule, *_rest in ROUTES:
        operations = {(op['method'], op['path'])
                      for op in by_name[rule].operations}
        assert (method, doc) in operations, (rule, method, doc)


def test_every_rule_is_used_by_a_route():
    used = {rule for _m, _d, rule, *_rest in ROUTES}
    assert used | policy_routes.BAREMETAL_CONDITIONAL_RULES == {
        rule.name for rule in _baremetal_rules()}
    assert not used & policy_routes.BAREMETAL_CONDITIONAL_RULES
