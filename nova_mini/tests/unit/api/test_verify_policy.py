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

"""The compute API's route table (tests/fixtures/policy_routes.py) is
exactly the operations its policies document, each route with the rule
that documents it; the functional test_verify_policy.py checks that each
route enforces its rule.
"""

from nova_mini import policies
from nova_mini.policies.compute import limits as limit_policies
from nova_mini.policies.compute import server_groups as group_policies
from nova_mini.policies.compute import servers as server_policies
from nova_mini.tests.fixtures import policy_routes

ROUTES = policy_routes.COMPUTE_ROUTES

# Rules a route that another rule guards checks only for some requests:
# one filters the response body (checked with fatal=False), one guards
# what a body may ask for (functional test_verify_policy.py).
BODY_RULES = {server_policies.EXTENDED_ATTRIBUTES,
              server_policies.CREATE_FORCED_HOST}
# Rules the list routes check for what a query asks, after their own
# (gabbits/servers-list.yaml).
QUERY_RULES = {server_policies.INDEX_ALL_TENANTS,
               server_policies.DETAIL_ALL_TENANTS,
               server_policies.ALLOW_ALL_FILTERS,
               group_policies.INDEX_ALL_PROJECTS,
               limit_policies.OTHER_PROJECT}


def _compute_rules():
    # The /baremetal routes: test_verify_policy_baremetal.py.
    return [rule for rule in policies.list_rules()
            if rule.name.startswith('os_compute_api:')]


def test_routes_are_the_documented_operations():
    documented = set()
    for rule in _compute_rules():
        for operation in getattr(rule, 'operations', ()):
            documented.add((operation['method'], operation['path']))
    walked = {(method, doc) for method, doc, *_rest in ROUTES}
    assert walked == documented


def test_each_route_checks_the_rule_documenting_it():
    by_name = {rule.name: rule for rule in policies.list_rules()}
    for method, doc, rule, *_rest in ROUTES:
        operations = {(op['method'], op['path'])
                      for op in by_name[rule].operations}
        assert (method, doc) in operations, (rule, method, doc)


def test_every_rule_is_used_by_a_route():
    used = ({rule for _m, _d, rule, *_rest in ROUTES} | BODY_RULES |
            QUERY_RULES | policy_routes.COMPUTE_CONDITIONAL_RULES)
    documented = {rule.name for rule in _compute_rules()
                  if getattr(rule, 'operations', None)}
    assert used == documented
