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

"""A node's ramdisk agent, as Ironic's conductor keeps it: the node a
ramdisk finds by its MAC addresses, and the secret token the agent is
given on its lookup and sends back with each heartbeat
(``driver_internal_info['agent_secret_token']``; see
nova_mini.api.baremetal.ramdisk).
"""

import hmac
import secrets

import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import node_power
from nova_mini.objects.baremetal import node_rescue

_NODES = models.Node.__table__
_PORTS = models.Port.__table__
# What a lookup hands out when the node has a token already (Ironic's).
MASKED_TOKEN = '******'


@db_api.context_manager.reader
def node_uuid_by_addresses(context, addresses):
    """Return the uuid of the one node having a port of ``addresses``.

    :param addresses: MAC addresses in lower case.
    :returns: the node's uuid.
    :raises nova_mini.exception_baremetal.NodeNotFound: no node has one, or several
        do.
    """
    rows = context.session.execute(sa.select(_NODES.c.uuid).distinct().join(
        _PORTS, _PORTS.c.node_id == _NODES.c.id).where(
            _PORTS.c.address.in_(addresses))).all()
    if len(rows) != 1:
        raise exception_baremetal.NodeNotFound(node=', '.join(addresses))
    return rows[0].uuid


@db_api.context_manager.writer
def issue_token(context, node):
    """Give the node a new agent token unless it has one, as Ironic's
    lookup does (from API 1.62).

    :param node: the Node; its ``driver_internal_info`` is updated.
    :returns: the new token, or MASKED_TOKEN if the node had one already
        (a second lookup learns nothing, and nothing is written).
    :raises nova_mini.exception_baremetal.NodeNotFound: the node is gone.
    """
    issued = []

    def _issue(info):
        # The row is locked from this read to the write: two lookups
        # racing give out one token.
        if info.get(node_rescue.AGENT_TOKEN) is not None:
            return None
        issued.append(secrets.token_urlsafe())
        info[node_rescue.AGENT_TOKEN] = issued[0]
        info.pop('agent_secret_token_pregenerated', None)
        return info

    node_power.change_internal_info(context, node, _issue)
    return issued[0] if issued else MASKED_TOKEN


def token_valid(node, token):
    """Return whether ``token`` is the agent token of ``node`` (none is
    never valid).
    """
    known = (node.driver_internal_info or {}).get(node_rescue.AGENT_TOKEN)
    if token is None or known is None:
        return False
    # Bytes: compare_digest refuses str that is not ASCII (a TypeError,
    # a 500 for any client sending one).
    return hmac.compare_digest(str(known).encode('utf-8', 'surrogatepass'),
                               token.encode('utf-8', 'surrogatepass'))
