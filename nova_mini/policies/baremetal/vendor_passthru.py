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

"""Policies of vendor passthru, with Ironic's names: listing and calling
the vendor methods of a node or a driver is the operator's (Ironic's
system administrators, an administrator here).
"""

from oslo_policy import policy

from nova_mini.policies import base

NODE = 'baremetal:node:vendor_passthru'
DRIVER = 'baremetal:driver:vendor_passthru'

_VERBS = ('GET', 'PUT', 'POST', 'PATCH', 'DELETE')


def _operations(path):
    return ([{'method': 'GET', 'path': path + '/methods'}]
            + [{'method': verb, 'path': path + '?method={method_name}'}
               for verb in _VERBS])


rules = [
    policy.DocumentedRuleDefault(
        name=NODE, check_str=base.SYSTEM_ADMIN,
        description='List and call the vendor methods of a node.',
        operations=_operations('/nodes/{node_ident}/vendor_passthru')),
    policy.DocumentedRuleDefault(
        name=DRIVER, check_str=base.SYSTEM_ADMIN,
        description='List and call the vendor methods of a driver.',
        operations=_operations('/drivers/{driver_name}/vendor_passthru')),
]


def list_rules():
    return rules
