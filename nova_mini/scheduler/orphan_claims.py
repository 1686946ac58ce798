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

"""Node claims that no build will ever use, and freeing them.

A scheduler claims a node (``nodes.instance_uuid``), deploys it, then
marks the instance ACTIVE on it (``instances.node_uuid``). A scheduler
killed between those steps leaves the node claimed, or deployed, for an
instance that is not on it; so does a deletion racing a build whose
scheduler died. Such a claim is an orphan when its instance:

- is gone, or
- is no longer building and does not name the node as its own (an
  ERROR build, or an instance ACTIVE elsewhere).

A building instance's claim is never touched: its scheduler may be about
to use it (an overdue build is moved to ERROR first, see
nova_mini.objects.compute.instance_build). A claim is only taken back when the
node has not changed for ``grace`` seconds, so that a scheduler between
its claim and its deploy never sees the node move under it.

Several schedulers may free orphans at once: each release is a
conditional UPDATE that re-checks the orphan rule on the row it locks,
so exactly one of them frees a node, and a node claimed again meanwhile
(by a live build) is left alone. Once a claim is an orphan it stays one
(an instance cannot come back, nor return to building, nor move onto
another node), so a rule read from a slightly older snapshot of the
instances table cannot free a claim still in use.
"""

import collections
import datetime

from oslo_utils import timeutils
import sqlalchemy as sa

from nova_mini.conductor import release
from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini.objects.baremetal import node as node_obj
from nova_mini.objects.compute import instance_build
from nova_mini.scheduler import conductor_deploy
from nova_mini import states

_NODES = models.Node.__table__
_INSTANCES = models.Instance.__table__

# The states a build leaves a claimed node in: claimed only (available)
# or deployed (active, or a deploy that failed, or rescued since: those
# still hold the instance, and a tear down frees them). A node an
# operator moved elsewhere (manageable, enroll, ...) is the operator's
# business.
_CLAIMED = (states.AVAILABLE,)
_DEPLOYED = (states.ACTIVE, states.DEPLOYFAIL, states.RESCUE,
             states.RESCUEWAIT, states.RESCUEFAIL, states.UNRESCUEFAIL)

Orphan = collections.namedtuple('Orphan', ['node_uuid', 'instance_uuid'])


def _instance_holds(node_uuid, instance_uuid):
    """An EXISTS true when the instance still has a right to the node:
    it is building, or it is on that node.
    """
    return sa.exists().where(
        _INSTANCES.c.uuid == instance_uuid,
        sa.or_(_INSTANCES.c.vm_state == instance_build.BUILDING,
               _INSTANCES.c.node_uuid == node_uuid))


def _unchanged_since(cutoff):
    return sa.func.coalesce(_NODES.c.updated_at, _NODES.c.created_at) < cutoff


@db_api.context_manager.reader
def _candidates(context, cutoff, limit):
    holds = sa.exists().where(
        _INSTANCES.c.uuid == _NODES.c.instance_uuid,
        sa.or_(_INSTANCES.c.vm_state == instance_build.BUILDING,
               _INSTANCES.c.node_uuid == _NODES.c.uuid))
    query = sa.select(_NODES.c.id, _NODES.c.uuid,
                      _NODES.c.instance_uuid).where(
        _NODES.c.instance_uuid.isnot(None),
        _NODES.c.provision_state.in_(_CLAIMED + _DEPLOYED),
        _unchanged_since(cutoff), ~holds).order_by(_NODES.c.id).limit(limit)
    return context.session.execute(query).all()


@db_api.context_manager.writer
def _release(context, node_id, node_uuid, instance_uuid, cutoff):
    """Free one node if its claim is still an orphan; whether it did.

    The first UPDATE re-checks the whole rule on the row and locks it; the
    node is then freed, in the same transaction, by the statements every
    other release uses (Node.unclaim, or the undeploy of
    Node.set_provision_state). A deployed node a nova-mini-conductor
    drives is returned instead (a Node): its conductor tears it down
    after the transaction (release.tear_down).
    """
    now = timeutils.utcnow()
    locked = context.session.execute(_NODES.update().where(
        _NODES.c.id == node_id,
        _NODES.c.instance_uuid == instance_uuid,
        _NODES.c.provision_state.in_(_CLAIMED + _DEPLOYED),
        _unchanged_since(cutoff),
        ~_instance_holds(node_uuid, instance_uuid)).values(
            updated_at=now)).rowcount
    if not locked:
        return False
    node = node_obj.Node.get_by_uuid(context, node_uuid)
    if node.provision_state in _CLAIMED:
        return node_obj.Node.unclaim(context, node_uuid, instance_uuid)
    if conductor_deploy.driven(node):
        # Its conductor tears it down, once this transaction is over:
        # the row lock held here would block the conductor's reservation.
        return node
    node.set_provision_state(states.UNDEPLOY)
    return True


def release_orphans(context, grace, limit=100):
    """Free the nodes held by orphan claims (see the module docstring).

    :param context: an admin request context.
    :param grace: seconds a node must have been left unchanged before its
        claim is taken back.
    :param limit: the most nodes looked at in one call.
    :returns: a list of Orphan (node_uuid, instance_uuid) freed by this
        call; one freed by a concurrent caller is not in it.
    """
    cutoff = timeutils.utcnow() - datetime.timedelta(seconds=grace)
    freed = []
    for row in _candidates(context, cutoff, limit):
        released = _release(context, row.id, row.uuid, row.instance_uuid,
                            cutoff)
        if isinstance(released, node_obj.Node):
            released = release.tear_down(
                context, released, row.instance_uuid) is not None
        if released:
            freed.append(Orphan(row.uuid, row.instance_uuid))
    return freed
