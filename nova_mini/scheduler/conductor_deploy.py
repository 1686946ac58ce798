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

"""Servers on nodes of real hardware: the nodes a nova-mini-conductor
drives (nova_mini.conductor.drivers: redfish).

A fake-hardware node is deployed and freed by database moves in the
scheduler or API process. A conductor-driven node never is: its BMC has
to be told, so

- a build hands the deploy of its claimed node to the node's conductor
  (``do_node_deploy``, with the config drive) and then reads the node
  every ``[ironic] api_retry_interval`` seconds, as Nova's Ironic driver
  polls Ironic, until it is ``active`` (the server becomes ACTIVE) or
  ``deploy failed`` / ``error`` (ERROR with Nova's Ironic driver's
  message and the node's ``last_error``), within the build's own
  deadline (``[DEFAULT] rpc_response_timeout`` after the server was
  created);
- freeing such a node (a failed or abandoned build, a server deleted, an
  orphan claim) is the conductor's tear down (``do_node_tear_down``:
  powered off, media ejected, ``deleting`` then ``available`` without
  its instance). A node only claimed, never deployed, is unclaimed in
  the database as any other (its BMC was never told anything). A node
  whose deploy or tear down is still running is left to that work: the
  build waiting for it, or the schedulers' orphan clean-up
  (nova_mini.scheduler.orphan_claims), frees it when it ends.
"""

import datetime
import time

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_mini.conductor import drivers
from nova_mini.conductor import release
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import node as node_obj
from nova_mini.objects.compute import instance as instance_obj
from nova_mini.objects.compute import instance_action
from nova_mini.objects.compute import instance_build
from nova_mini.objects.compute import instance_task
from nova_mini import states

LOG = logging.getLogger(__name__)

# A deploy's ends.
DEPLOY_FAILED = (states.DEPLOYFAIL, states.ERROR)

# Nova's Ironic driver's words: a deploy request Ironic refused, a deploy
# that failed.
REQUEST_FAILED = 'Failed to request Ironic to provision instance %s: %s'
PROVISION_FAILED = 'Failed to provision instance %s: %s'


def driven(node):
    """Whether ``node`` (a Node) is driven by a nova-mini-conductor."""
    return node.driver in drivers.REAL_HARDWARE_TYPES


class Deploy(object):
    """A deploy a conductor runs for a build: ``instance`` (the Instance),
    ``node_uuid``, ``config_drive`` (whether the server got one),
    ``deadline`` (the build's, naive UTC) and ``give_up`` (when the
    scheduler stops waiting for a deploy its conductor still runs after
    the deadline).
    """

    def __init__(self, instance, node_uuid, config_drive, timeout,
                 grace):
        self.instance = instance
        self.node_uuid = node_uuid
        self.config_drive = config_drive
        self.timeout = timeout
        created = timeutils.normalize_time(instance.created_at) \
            if instance.obj_attr_is_set('created_at') and \
            instance.created_at else timeutils.utcnow()
        self.deadline = created + datetime.timedelta(seconds=timeout)
        self.give_up = self.deadline + datetime.timedelta(seconds=grace)
        # Why the build failed, once it did (the node may still have to
        # be freed).
        self.failed = None


def start(context, conf, instance, node, configdrive, with_drive,
          timeout):
    """Ask ``node``'s conductor to deploy it for ``instance``.

    :returns: the Deploy to follow (``check``).
    :raises: what ConductorAPI.do_node_deploy raises.
    """
    release.conductor_api(conf).do_node_deploy(
        context, node, instance.uuid, configdrive=configdrive)
    LOG.info('Node %s: deploy for instance %s handed to its conductor',
             node.uuid, instance.uuid)
    # After the deadline, the conductor's own waits bound its work: a
    # power off and a power on, each within power_state_change_timeout.
    grace = 2 * conf.conductor.power_state_change_timeout + \
        conf.ironic.api_retry_interval
    return Deploy(instance, node.uuid, with_drive, timeout, grace)


def fail(deploy, message):
    """Fail the build of ``deploy`` with ``message`` (once)."""
    if deploy.failed is None:
        deploy.failed = message
        deploy.instance.mark_error(message, code=500)


def check(context, deploy, conf, now=None):
    """Read the deploy's node once and act on what it shows.

    :returns: ``(done, failed)``: whether the scheduler stops following
        it, and why the server did not become ACTIVE (None: it did).
    """
    now = now or timeutils.utcnow()
    instance = deploy.instance
    try:
        node = node_obj.Node.get_by_uuid(context, deploy.node_uuid)
    except exception_baremetal.NodeNotFound:
        fail(deploy, PROVISION_FAILED % (
            instance.uuid, 'the node was deleted during the deploy.'))
        return True, deploy.failed
    if node.instance_uuid != instance.uuid:
        # Freed meanwhile (an operator's tear down, the orphan clean-up).
        fail(deploy, PROVISION_FAILED % (
            instance.uuid, 'the node was freed during the deploy.'))
        return True, deploy.failed
    working = node.reservation is not None or \
        node.provision_state == states.DEPLOYING
    if not working and node.provision_state == states.ACTIVE:
        if deploy.failed is None and instance.mark_active(
                deploy.node_uuid, config_drive=deploy.config_drive):
            LOG.info('Instance %s is ACTIVE on node %s', instance.uuid,
                     deploy.node_uuid)
            return True, None
        if deploy.failed is None:
            # Deleted or expired during the deploy.
            deploy.failed = ('Instance %s was deleted during its build.'
                             % instance.uuid)
        LOG.info('Instance %s stopped building meanwhile; tearing node %s '
                 'down', instance.uuid, deploy.node_uuid)
        release.tear_down(context, node, instance.uuid, conf)
        return True, deploy.failed
    if not working and node.provision_state in DEPLOY_FAILED:
        LOG.info('Deploying node %s failed: %s', node.uuid, node.last_error)
        fail(deploy, PROVISION_FAILED % (instance.uuid, node.last_error))
        release.tear_down(context, node, instance.uuid, conf)
        return True, deploy.failed
    if not working:
        # Moved by someone else (an operator): not this build's node.
        fail(deploy, PROVISION_FAILED % (
            instance.uuid, 'the node went to provision state %s during '
            'the deploy.' % node.provision_state))
        return True, deploy.failed
    if now > deploy.deadline and deploy.failed is None:
        LOG.warning('Node %s is still %s after the build\'s %d seconds; '
                    'instance %s fails', node.uuid, node.provision_state,
                    deploy.timeout, instance.uuid)
        fail(deploy, PROVISION_FAILED % (
            instance.uuid, 'Timeout reached while waiting for the node %s '
            'to become active: it was still %s after %d seconds ([DEFAULT] '
            'rpc_response_timeout).' % (node.uuid, node.provision_state,
                                        deploy.timeout)))
    if now > deploy.give_up:
        LOG.warning('Node %s is still %s; the schedulers\' clean-up will '
                    'free it when its conductor is done', node.uuid,
                    node.provision_state)
        return True, deploy.failed
    return False, None


def _end_rebuild(context, instance, values, failed):
    if failed:
        values = dict(values, vm_state=instance_task.ERROR,
                      fault=instance_build.make_fault(failed, 500))
        values.pop('power_state', None)
    try:
        instance_task.finish(instance, instance_task.REBUILDING, **values)
    except exception.InstanceNotFound:
        LOG.info('Instance %s was deleted during its rebuild',
                 instance.uuid)
        return False
    instance_action.event_finish(
        context, instance.uuid, instance_action.REBUILD, REBUILD_EVENT,
        instance.node_uuid,
        result=instance_action.ERROR if failed else instance_action.SUCCESS,
        details=failed)
    return True


# The rebuild's event Nova's compute manager records.
REBUILD_EVENT = 'compute_rebuild_instance'


def rebuild(context, conf, instance_uuid, node_uuid, values, timeout,
            sleep=None):
    """Redeploy the conductor-driven node of a server being rebuilt (the
    API started the task and wrote the node's new instance_info, config
    drive included) and end the rebuild: ``values`` (the server's
    columns) once the node is active again, ERROR with Nova's Ironic
    driver's message otherwise (the node keeps its instance, as Nova's
    failed rebuild leaves it). A server rebuilt while stopped is powered
    off again. Bounded by ``timeout`` seconds (the build's).

    :returns: why the rebuild failed, or None.
    """
    sleep = sleep or time.sleep
    try:
        instance = instance_obj.Instance.get_by_uuid(context, instance_uuid)
    except exception.InstanceNotFound:
        return None
    if instance.task_state != instance_task.REBUILDING:
        LOG.info('Instance %s is no longer rebuilding', instance_uuid)
        return None
    instance_action.event_start(context, instance_uuid,
                                instance_action.REBUILD, REBUILD_EVENT,
                                node_uuid)
    api = release.conductor_api(conf)
    try:
        node = node_obj.Node.get_by_uuid(context, node_uuid)
        api.do_node_deploy(context, node, instance_uuid)
    except exception.NovaMiniException as exc:
        failed = REQUEST_FAILED % (instance_uuid, exc.format_message())
        LOG.info('Rebuild of node %s not started: %s', node_uuid, exc)
        _end_rebuild(context, instance, values, failed)
        return failed
    deadline = timeutils.utcnow() + datetime.timedelta(seconds=timeout)
    give_up = deadline + datetime.timedelta(
        seconds=2 * conf.conductor.power_state_change_timeout)
    failed = None
    while True:
        sleep(conf.ironic.api_retry_interval)
        try:
            node = node_obj.Node.get_by_uuid(context, node_uuid)
        except exception_baremetal.NodeNotFound:
            failed = failed or PROVISION_FAILED % (
                instance_uuid, 'the node was deleted during the deploy.')
            break
        if node.instance_uuid != instance_uuid:
            failed = failed or PROVISION_FAILED % (
                instance_uuid, 'the node was freed during the deploy.')
            break
        if node.reservation is None and \
                node.provision_state != states.DEPLOYING:
            if node.provision_state in DEPLOY_FAILED:
                failed = failed or PROVISION_FAILED % (instance_uuid,
                                                       node.last_error)
            elif node.provision_state != states.ACTIVE:
                failed = failed or PROVISION_FAILED % (
                    instance_uuid, 'the node went to provision state %s '
                    'during the deploy.' % node.provision_state)
            break
        now = timeutils.utcnow()
        if now > deadline and failed is None:
            failed = PROVISION_FAILED % (
                instance_uuid, 'Timeout reached while waiting for the node '
                '%s to become active: it was still %s after %d seconds '
                '([DEFAULT] rpc_response_timeout).' % (
                    node_uuid, node.provision_state, timeout))
            _end_rebuild(context, instance, values, failed)
        if now > give_up:
            return failed
    if failed is None and values.get('vm_state') == instance_task.STOPPED:
        # As Nova: a server rebuilt while stopped stays stopped.
        try:
            api.change_node_power_state(context, node, states.POWER_OFF)
        except exception.NovaMiniException as exc:
            LOG.warning('Could not power node %s off after the rebuild of '
                        'stopped instance %s: %s', node_uuid, instance_uuid,
                        exc)
    LOG.info('Rebuild of instance %s on node %s: %s', instance_uuid,
             node_uuid, failed or 'done')
    if instance.task_state == instance_task.REBUILDING and not \
            _end_rebuild(context, instance, values, failed):
        # Deleted during the rebuild: its node is freed now the deploy
        # is over.
        release.tear_down(context, node, instance_uuid, conf)
    return failed
