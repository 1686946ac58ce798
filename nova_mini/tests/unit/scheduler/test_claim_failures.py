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

"""The "no valid host" of nodes lost after their selection
(nova_mini.scheduler.claim_failures): no node named to the user.
"""

import pytest

from nova_mini import exception_baremetal
from nova_mini.scheduler import claim_failures

NODE = '4b1e6a3c-92d1-4c55-8b0e-2f7d3c9a1e64'


def test_claims_lost():
    exc = claim_failures.claims_lost(3, 2)
    assert exc.format_message() == (
        'No valid host was found. Other requests claimed the nodes chosen '
        'for this one at the same time, 3 times in a row; there were enough '
        'suitable nodes, so booting again may succeed.')
    assert exc.kwargs['details'].startswith(
        'Claim rounds: 3, instances left without a node: 2')


@pytest.mark.parametrize('exc, happened', [
    (exception_baremetal.MissingNodeTraits(node=NODE, missing='CUSTOM_GPU'),
     'lost the required trait CUSTOM_GPU'),
    (exception_baremetal.MissingNodeTraits(node=NODE, missing='CUSTOM_A, CUSTOM_B'),
     'lost the required traits CUSTOM_A, CUSTOM_B'),
    (exception_baremetal.NodeInMaintenance(node=NODE, action='active'),
     'went into maintenance'),
    (exception_baremetal.InvalidStateRequested(node=NODE, action='active',
                                               state='manageable'),
     'left provision state available'),
    (exception_baremetal.NodeNotFound(node=NODE), 'was deleted')])
def test_deploy_refused_names_no_node(exc, happened):
    refused = claim_failures.deploy_refused(exc)
    assert refused.format_message() == (
        'No valid host was found. The node chosen for this server %s before '
        'it was deployed; booting again may succeed.' % happened)
    # Administrators see which node.
    assert refused.kwargs['details'] == exc.format_message()
    assert NODE in refused.kwargs['details']
