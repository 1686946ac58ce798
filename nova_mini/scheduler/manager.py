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

"""Server side of the scheduler RPC API (see rpcapi for the history)."""

import time
import traceback

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_utils import timeutils

from nova_mini import conf
from nova_mini.configdrive import required as configdrive_required
from nova_mini.configdrive import tree as configdrive_tree
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import node as node_obj
from nova_mini.objects.compute import instance as instance_obj
from nova_mini.objects.compute import instance_action
from nova_mini import rpc
from nova_mini.scheduler import claim_failures
from nova_mini.scheduler import conductor_deploy
from nova_mini.scheduler import conductor_power
from nova_mini.scheduler import filter_scheduler
from nova_mini.scheduler import rpcapi
from nova_mini import states
from nova_mini import version

LOG = logging.getLogger(__name__)

# The events of a create action, named as Nova's compute manager (a
# deploy) and conductor (no node found) name theirs.
BUILD_EVENT = 'compute__do_build_and_run_instance'
SCHEDULE_EVENT = 'conductor_schedule_and_build_instances'


class SchedulerManager(object):
    target = messaging.Target(version=rpcapi.VERSION)

    def __init__(self, host, conf=conf.CONF):
        self.host = host
        self.conf = conf
        self.driver = filter_scheduler.FilterScheduler(conf)
        # The metadata service's vendordata providers, for config drives:
        # a configuration they refuse stops the scheduler at start.
        self.config_drives = configdrive_tree.ConfigDriveBuilder.from_conf(
            conf)

    def ping(self, ctxt):
        """Return this scheduler's host and versions (RPC ``ping``)."""
        return {'host': self.host, 'version': version.version_string(),
                'rpc_api_version': rpcapi.VERSION}

    @messaging.expected_exceptions(exception.NoValidHost)
    def select_destinations(self, ctxt, spec_obj, instance_uuids,
                            return_alternates=False):
        """Answer RPC ``select_destinations``: see
        FilterScheduler.select_destinations.
        """
        return self.driver.select_destinations(
            ctxt, spec_obj, instance_uuids, return_alternates)

    @messaging.expected_exceptions(exception.NoValidHost)
    def claim_destinations(self, ctxt, spec_obj, instance_uuids):
        """Answer RPC ``claim_destinations``: see
        FilterScheduler.claim_destinations.
        """
        selections = self.driver.claim_destinations(ctxt, spec_obj,
                                                    instance_uuids)
        for instance_uuid, selection in zip(instance_uuids, selections):
            LOG.info('Claimed node %s for instance %s',
                     selection.node_uuid, instance_uuid)
        return selections

    def _build_timeout(self):
        return rpc.response_timeout(self.conf)

    def _pending(self, ctxt, instance_uuids):
        """The instances still waiting for this build: not deleted, not
        failed, not past their deadline (the API shows those as ERROR).
        """
        timeout = self._build_timeout()
        pending = []
        for instance_uuid in instance_uuids:
            try:
                instance = instance_obj.Instance.get_by_uuid(ctxt,
                                                             instance_uuid)
            except exception.InstanceNotFound:
                LOG.info('Instance %s was deleted before its build',
                         instance_uuid)
                continue
            if instance.vm_state != instance_obj.BUILDING:
                continue
            if instance.expire_build(timeout):
                LOG.warning('Instance %s waited more than %ds for a '
                            'scheduler; not building it', instance_uuid,
                            timeout)
                continue
            pending.append(instance)
        return pending

    def _config_drive(self, instance, node_uuid):
        """The instance's config drive, gzip + base64, as it will be on
        ``node_uuid`` (its zone, the node's ports).
        """
        deployed = instance.obj_clone()
        deployed.node_uuid = node_uuid
        return self.config_drives.build(deployed)

    def _drive_failed(self, ctxt, instance, exc):
        """Fail a build whose config drive could not be built, in Nova's
        Ironic driver's words; a target's reason (it may name internal
        URLs) only in the log and the fault's details (administrators).
        """
        if isinstance(exc, exception.VendorDataTargetFailed):
            failed = ('Failed to build configdrive: Vendordata target %s '
                      'failed.' % exc.kwargs.get('target'))
        else:
            failed = 'Failed to build configdrive: %s' % exc.format_message()
        LOG.error('Instance %s: config drive not built: %s', instance.uuid,
                  exc)
        node_obj.Node.release(ctxt, instance.uuid)
        instance.mark_error(failed, code=500, details=exc.format_message())
        return failed

    def _deploy(self, ctxt, instance, selection, image=None):
        """Deploy the claimed node (the node's own trait check runs), with
        a config drive when the instance gets one (configdrive.required),
        and mark the instance ACTIVE; on failure record the fault. The node
        is freed again whenever the instance did not become ACTIVE on it.

        A node a nova-mini-conductor drives (redfish) is deployed by its
        conductor instead: see nova_mini.scheduler.conductor_deploy.

        :param image: the ImageMeta of the boot request.
        :returns: why the instance did not become ACTIVE, None if it did,
            or the conductor_deploy.Deploy a conductor runs.
        """
        with_drive = configdrive_required.required_by(instance, image,
                                                      self.conf)
        configdrive = None
        if with_drive:
            try:
                configdrive = self._config_drive(instance,
                                                 selection.node_uuid)
            except (exception.VendorDataTargetFailed,
                    exception.ConfigDriveTooLarge) as exc:
                return self._drive_failed(ctxt, instance, exc)
        try:
            node = node_obj.Node.get_by_uuid(ctxt, selection.node_uuid)
            if conductor_deploy.driven(node):
                # Real hardware: its conductor deploys it (it checks the
                # claim, state, maintenance and traits as below), and
                # _wait_for_deploys follows it.
                return conductor_deploy.start(
                    ctxt, self.conf, instance, node, configdrive,
                    with_drive, self._build_timeout())
            # Only while the node is still claimed for this instance: a
            # deletion or a clean-up may have freed it, and another build
            # claimed it, since the selection.
            node.set_provision_state(states.DEPLOY,
                                     instance_uuid=instance.uuid,
                                     configdrive=configdrive)
        except (exception_baremetal.NodeLocked,
                exception_baremetal.NoValidConductor,
                exception.ServiceUnavailable,
                exception.RPCVersionCapped) as exc:
            # The node's conductor refused or could not take the deploy
            # (busy, none alive, locked by another operation).
            failed = conductor_deploy.REQUEST_FAILED % (
                instance.uuid, exc.format_message())
            LOG.info('Deploying node %s was not started: %s',
                     selection.node_uuid, exc)
            node_obj.Node.release(ctxt, instance.uuid)
            instance.mark_error(failed, code=500)
            return failed
        except exception_baremetal.DeployStepsRefused as exc:
            # Nova's Ironic driver's words for a refused deploy request.
            failed = 'Failed to request Ironic to provision instance %s: %s' % (
                instance.uuid, exc.format_message())
            LOG.info('Deploying node %s was refused: %s',
                     selection.node_uuid, exc)
            node_obj.Node.release(ctxt, instance.uuid)
            instance.mark_error(failed, code=500)
            return failed
        except (exception_baremetal.MissingNodeTraits, exception_baremetal.NodeInMaintenance,
                exception_baremetal.InvalidStateRequested, exception_baremetal.NodeClaimLost,
                exception_baremetal.NodeNotFound) as exc:
            LOG.info('Deploying node %s for instance %s failed: %s',
                     selection.node_uuid, instance.uuid, exc)
            node_obj.Node.release(ctxt, instance.uuid)
            # The node is named in the details (admins) only.
            refused = claim_failures.deploy_refused(exc)
            instance.mark_error(refused.format_message(), code=500,
                                details=refused.kwargs['details'])
            return refused.format_message()
        if node.provision_state == states.DEPLOYFAIL:
            # The deploy ran and failed (a deploy template's step, say):
            # Nova's Ironic driver reports the node's last_error, and the
            # node is torn down.
            failed = 'Failed to provision instance %s: %s' % (
                instance.uuid, node.last_error)
            LOG.info('Deploying node %s failed: %s', selection.node_uuid,
                     node.last_error)
            node_obj.Node.release(ctxt, instance.uuid)
            instance.mark_error(failed, code=500)
            return failed
        if instance.mark_active(selection.node_uuid,
                                config_drive=with_drive):
            LOG.info('Instance %s is ACTIVE on node %s', instance.uuid,
                     selection.node_uuid)
            return None
        # Deleted or expired meanwhile: give the node back.
        LOG.info('Instance %s stopped building meanwhile; freeing node %s',
                 instance.uuid, selection.node_uuid)
        node_obj.Node.release(ctxt, instance.uuid)
        return 'Instance %s was deleted during its build.' % instance.uuid

    def _build(self, ctxt, instance, selection, image=None):
        """Deploy one instance, recorded as the event of its create
        action that Nova's compute manager records.
        """
        instance_action.event_start(ctxt, instance.uuid,
                                    instance_action.CREATE, BUILD_EVENT,
                                    selection.node_uuid)
        failed = trace = None
        try:
            failed = self._deploy(ctxt, instance, selection, image)
        except Exception as exc:
            LOG.exception('Building instance %s failed', instance.uuid)
            node_obj.Node.release(ctxt, instance.uuid)
            failed = 'Build of instance %s failed: %s' % (instance.uuid, exc)
            trace = traceback.format_exc()
            instance.mark_error(failed, code=500)
        if isinstance(failed, conductor_deploy.Deploy):
            # Finished by _wait_for_deploys.
            return failed
        self._finish_build(ctxt, instance, selection.node_uuid, failed,
                           trace)
        return None

    @staticmethod
    def _finish_build(ctxt, instance, node_uuid, failed, trace=None):
        instance_action.event_finish(
            ctxt, instance.uuid, instance_action.CREATE, BUILD_EVENT,
            node_uuid,
            result=instance_action.ERROR if failed else
            instance_action.SUCCESS, details=failed, traceback=trace)

    def _wait_for_deploys(self, ctxt, deploys, sleep=time.sleep):
        """Follow the deploys conductors run (conductor_deploy.check)
        until each ends, reading each node every ``[ironic]
        api_retry_interval`` seconds; each build's event is then
        finished.
        """
        while deploys:
            following = []
            for deploy in deploys:
                trace = None
                try:
                    done, failed = conductor_deploy.check(ctxt, deploy,
                                                          self.conf)
                except Exception as exc:
                    LOG.exception('Following the deploy of node %s for '
                                  'instance %s failed', deploy.node_uuid,
                                  deploy.instance.uuid)
                    done = timeutils.utcnow() > deploy.give_up
                    failed = 'Build of instance %s failed: %s' % (
                        deploy.instance.uuid, exc)
                    trace = traceback.format_exc()
                    if done:
                        conductor_deploy.fail(deploy, failed)
                if done:
                    self._finish_build(ctxt, deploy.instance,
                                       deploy.node_uuid, failed, trace)
                else:
                    following.append(deploy)
            deploys = following
            if deploys:
                sleep(self.conf.ironic.api_retry_interval)

    def rebuild_instance(self, ctxt, instance_uuid, node_uuid, values):
        """Redeploy the node of a server being rebuilt, through its
        nova-mini-conductor, and end the rebuild (RPC cast): see
        conductor_deploy.rebuild.
        """
        conductor_deploy.rebuild(ctxt, self.conf, instance_uuid, node_uuid,
                                 values, self._build_timeout())

    def power_instance(self, ctxt, instance_uuid, node_uuid, action,
                       task_state, target, event, end):
        """Run the power action the API started on a server whose node
        a nova-mini-conductor drives and end its task (RPC cast): see
        conductor_power.run.
        """
        conductor_power.run(ctxt, self.conf, instance_uuid, node_uuid,
                            action, task_state, target, event, end)

    def _schedule_failed(self, ctxt, instances, message, details=None):
        """Fail the instances no node was found for, recorded as the
        event Nova's conductor records then.
        """
        trace = traceback.format_exc()
        for instance in instances:
            instance.mark_error(message, code=500, details=details)
            instance_action.event_finish(
                ctxt, instance.uuid, instance_action.CREATE,
                SCHEDULE_EVENT, self.host, result=instance_action.ERROR,
                details=message, traceback=trace)

    def build_instances(self, ctxt, spec_obj, instance_uuids):
        """Build servers whose rows the API made in BUILD (RPC cast).

        Each instance gets a claimed node and is marked ACTIVE, or ERROR
        with a fault; an instance deleted or expired meanwhile frees its
        node. Each build is an event of the instance's create action.
        The nodes nova-mini-conductors drive are deployed by them, all
        started first, then followed together (_wait_for_deploys).

        :param ctxt: the request context.
        :param spec_obj: the RequestSpec of the boot request.
        :param instance_uuids: the instances to build.
        """
        instances = self._pending(ctxt, instance_uuids)
        if not instances:
            return
        uuids = [instance.uuid for instance in instances]
        spec_obj.instance_uuids = uuids
        spec_obj.num_instances = len(uuids)
        try:
            selections = self.driver.claim_destinations(ctxt, spec_obj,
                                                        uuids)
        except exception.NoValidHost as exc:
            LOG.info('No valid host for instances %s: %s',
                     ', '.join(uuids), exc)
            # The message says why, for the user; the counts behind it
            # go to the details, which only administrators see.
            self._schedule_failed(ctxt, instances, exc.format_message(),
                                  exc.kwargs.get('details'))
            return
        except Exception as exc:
            LOG.exception('Scheduling instances %s failed', ', '.join(uuids))
            self._schedule_failed(
                ctxt, instances, 'Build of instances %s failed: %s'
                % (', '.join(uuids), exc))
            return
        deploys = []
        for instance, selection in zip(instances, selections):
            deploy = self._build(ctxt, instance, selection, spec_obj.image)
            if deploy is not None:
                deploys.append(deploy)
        # The conductors deploy their nodes at once; then they are
        # followed together.
        self._wait_for_deploys(ctxt, deploys)
