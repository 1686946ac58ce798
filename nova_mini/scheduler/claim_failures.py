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

""""No valid host" after a selection: the nodes chosen were lost before
the build could use them, claimed by other requests (``claims_lost``) or
changed before their deploy (``deploy_refused``). As in no_valid_host.py,
the message a user reads names no node; administrators see it in the
details.
"""

from nova_mini import exception
from nova_mini import exception_baremetal


def claims_lost(rounds, instances):
    """Return the NoValidHost for instances whose every selected node was
    claimed by other requests.

    :param rounds: how many times the request selected and lost.
    :param instances: how many instances were left without a node.
    :returns: a NoValidHost.
    """
    reason = ('Other requests claimed the nodes chosen for this one at the '
              'same time, %d time%s in a row; there were enough suitable '
              'nodes, so booting again may succeed.'
              % (rounds, '' if rounds == 1 else 's'))
    details = ('Claim rounds: %d, instances left without a node: %d '
               '(the larger of [filter_scheduler] max_attempts and the '
               "scheduler's own minimum bounds the rounds)."
               % (rounds, instances))
    return exception.NoValidHost(reason=reason, details=details)


def deploy_refused(exc):
    """Return the NoValidHost for a claimed node whose deploy was refused
    (it changed between the selection and the deploy).

    The user reads what happened to "the node chosen for this server";
    the node itself is named in the details only.

    :param exc: the exception the deploy raised: MissingNodeTraits,
        NodeInMaintenance, InvalidStateRequested, NodeClaimLost or
        NodeNotFound.
    :returns: a NoValidHost.
    """
    if isinstance(exc, exception_baremetal.MissingNodeTraits):
        missing = exc.kwargs.get('missing')
        happened = 'lost the required trait%s %s' % (
            '' if isinstance(missing, str) and ',' not in missing else 's',
            missing) if missing else 'lost a required trait'
    elif isinstance(exc, exception_baremetal.NodeInMaintenance):
        happened = 'went into maintenance'
    elif isinstance(exc, exception_baremetal.NodeNotFound):
        happened = 'was deleted'
    elif isinstance(exc, exception_baremetal.NodeClaimLost):
        happened = 'was taken by another server'
    else:
        happened = 'left provision state available'
    reason = ('The node chosen for this server %s before it was deployed; '
              'booting again may succeed.' % happened)
    return exception.NoValidHost(reason=reason,
                                 details=exc.format_message())
