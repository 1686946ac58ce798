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

"""Freeing a node a nova-mini-conductor drives of its instance, from the
process that frees it (nova-mini-api deleting a server, a scheduler
ending a build or cleaning up an orphan claim): a node only claimed is
unclaimed in the database, a deployed one is torn down by its conductor,
asked over RPC. Node.release and nova_mini.scheduler.conductor_deploy
both free such nodes through ``tear_down``.
"""

from oslo_log import log as logging

from nova_mini import exception
from nova_mini.objects.baremetal import node_provision
from nova_mini import rpc
from nova_mini import states

LOG = logging.getLogger(__name__)

# What a conductor's tear down starts from (Ironic's "deleted").
TEAR_DOWN_FROM = (states.ACTIVE, states.DEPLOYFAIL, states.ERROR)


def conductor_api(conf):
    """A client of the conductors (imported here: the API and the
    scheduler load tooz's hash ring only when a node needs it).
    """
    from nova_mini.conductor import rpcapi
    return rpcapi.ConductorAPI(conf)


def tear_down(context, node, instance_uuid=None, conf=None):
    """Free the conductor-driven ``node`` (a Node, as just read) of its
    instance: unclaimed if it was never deployed, else torn down by its
    conductor (started: the conductor's worker ends it).

    :param instance_uuid: the instance the node must still be claimed
        by (None: whichever).
    :returns: the node's uuid if this call freed it or started its tear
        down; None if it was not this instance's, its deploy or tear down
        is still running, or its conductor could not be asked (the
        schedulers' orphan clean-up tries again).
    """
    if conf is None:
        from nova_mini import conf as nm_conf
        conf = nm_conf.CONF
    if instance_uuid is not None and node.instance_uuid != instance_uuid:
        return None
    if node.provision_state == states.AVAILABLE:
        if node_provision.unclaim(context, node.uuid,
                                  node.instance_uuid):
            return node.uuid
        return None
    if node.provision_state not in TEAR_DOWN_FROM:
        LOG.info('Node %s is %s: it is freed when that work ends',
                 node.uuid, node.provision_state)
        return None
    try:
        # Checked by the conductor under the node's reservation: a node
        # freed and claimed again since it was read here is not torn
        # down under its new instance.
        # A hand-off bounded by tear_down_request_timeout: a conductor
        # registered alive but not answering (killed, its heartbeat not
        # yet timed out) does not hold a DELETE up; the orphan clean-up
        # asks again.
        conductor_api(conf).do_node_tear_down(
            context, node, instance_uuid=node.instance_uuid,
            call_timeout=min(conf.conductor.tear_down_request_timeout,
                             rpc.response_timeout(conf)))
    except exception.NovaMiniException as exc:
        LOG.warning('Could not start the tear down of node %s (instance '
                    '%s): %s; the schedulers\' clean-up will try again',
                    node.uuid, node.instance_uuid, exc)
        return None
    except Exception:
        # Whatever else went wrong: what asked (a deletion done, a build
        # failed) stands, and the clean-up tries again.
        LOG.exception('Could not start the tear down of node %s (instance '
                      '%s); the schedulers\' clean-up will try again',
                      node.uuid, node.instance_uuid)
        return None
    LOG.info('Tear down of node %s (instance %s) started', node.uuid,
             node.instance_uuid)
    return node.uuid
