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

"""Client side of the scheduler RPC API.

API version history:

* 1.0 - Initial version: ``ping``.
* 1.1 - ``select_destinations`` and ``claim_destinations`` (RequestSpec
  in, Selections out).
* 1.2 - ``build_instances`` (a cast: claim, deploy-time trait check,
  ACTIVE or ERROR recorded on each instance).
* 1.3 - ``rebuild_instance`` (a cast: the redeploy of a server's node
  driven by a nova-mini-conductor, followed until it ends the rebuild).
* 1.4 - ``power_instance`` (a cast: os-stop, os-start or reboot of a
  server on a node a nova-mini-conductor drives, told to its BMC and
  followed until it ends the server's task).
"""

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_mini import conf
from nova_mini import exception
from nova_mini import rpc

CONF = conf.CONF
LOG = logging.getLogger(__name__)

TOPIC = 'scheduler'
VERSION = '1.4'

# The seconds a client is told to wait (Retry-After) when the version pin
# of a rolling upgrade keeps builds from being sent.
UPGRADE_RETRY_AFTER = 60


class SchedulerAPI(object):
    """Calls to the scheduler, capped by ``[upgrade_levels] scheduler``."""

    def __init__(self, conf=CONF):
        target = messaging.Target(topic=TOPIC, version=VERSION)
        self.cap = conf.upgrade_levels.scheduler
        self.client = rpc.get_client(conf, target, version_cap=self.cap)

    def _prepare(self, version, timeout, **options):
        if not self.client.can_send_version(version):
            raise exception.RPCVersionCapped(api='scheduler',
                                             version=version, cap=self.cap)
        return self.client.prepare(version=version, timeout=timeout,
                                   **options)

    def ping(self, ctxt, timeout=None):
        """Ask any scheduler for its host and version (a health check).

        :param ctxt: the request context.
        :param timeout: the seconds to wait (None: rpc_response_timeout).
        :returns: ``{'host', 'version', 'rpc_api_version'}``.
        """
        cctxt = self.client.prepare(version='1.0', timeout=timeout)
        return cctxt.call(ctxt, 'ping')

    def select_destinations(self, ctxt, spec_obj, instance_uuids,
                            return_alternates=False, timeout=None):
        """Ask a scheduler to choose nodes; nothing is claimed.

        :param ctxt: the request context.
        :param spec_obj: the RequestSpec.
        :param instance_uuids: the instances.
        :param return_alternates: add alternates after each chosen node.
        :param timeout: the seconds to wait (None: rpc_response_timeout).
        :returns: one list of Selections per instance (chosen node first).
        :raises nova_mini.exception.NoValidHost: not enough nodes.
        :raises nova_mini.exception.RPCVersionCapped: capped below 1.1.
        """
        cctxt = self._prepare('1.1', timeout)
        return cctxt.call(ctxt, 'select_destinations', spec_obj=spec_obj,
                          instance_uuids=instance_uuids,
                          return_alternates=return_alternates)

    def claim_destinations(self, ctxt, spec_obj, instance_uuids,
                           timeout=None):
        """Ask a scheduler to select and atomically claim one node per instance.

        :param ctxt: the request context.
        :param spec_obj: the RequestSpec.
        :param instance_uuids: the instances.
        :param timeout: the seconds to wait (None: rpc_response_timeout).
        :returns: one Selection per instance.
        :raises nova_mini.exception.NoValidHost: not enough nodes (and then
            nothing is claimed).
        :raises nova_mini.exception.RPCVersionCapped: capped below 1.1.
        """
        cctxt = self._prepare('1.1', timeout)
        return cctxt.call(ctxt, 'claim_destinations', spec_obj=spec_obj,
                          instance_uuids=instance_uuids)

    def _cast_at_least_once(self, ctxt, version, method, retry, errors,
                            what, **kwargs):
        """Cast ``method`` to a scheduler's queue, which must exist
        (rpc.AT_LEAST_ONCE), trying the broker ``retry`` times.

        :param errors: the caller's words for the three refusals:
            ``(capped below version, no scheduler queue, broker not
            taking it)``.
        :param what: what is sent, for the log.
        """
        upgrading, not_listening, unavailable = errors
        try:
            cctxt = self._prepare(version, None, retry=retry,
                                  transport_options=rpc.AT_LEAST_ONCE)
        except exception.RPCVersionCapped as exc:
            raise upgrading(retry_after=UPGRADE_RETRY_AFTER, **exc.kwargs)
        try:
            cctxt.cast(ctxt, method, **kwargs)
        except messaging.MessageUndeliverable:
            raise not_listening(retry_after=rpc.BROKER_RETRY_AFTER)
        except rpc.SEND_FAILURES as exc:
            LOG.warning('The %s could not be sent: %s', what, exc)
            raise unavailable(retry_after=rpc.BROKER_RETRY_AFTER)

    def build_instances(self, ctxt, spec_obj, instance_uuids, retry=None):
        """Have a scheduler build the instances (BUILD rows already made).

        It claims a node for each, checks the node's traits as a deploy
        does, and marks each ACTIVE, or ERROR with a fault. A cast: nothing
        comes back; the instances record the outcome.

        :param ctxt: the request context.
        :param spec_obj: the RequestSpec.
        :param instance_uuids: the instances.
        :param retry: how often to try reaching the broker (None:
            oslo.messaging's default, for ever).
        :raises nova_mini.exception.SchedulerUpgrading: capped below 1.2
            (a rolling upgrade not finished).
        :raises nova_mini.exception.BrokerUnavailable: the broker did not
            take the message within ``retry`` attempts.
        :raises nova_mini.exception.SchedulerNotListening: the broker had
            no scheduler queue to put it in (and dropped it).
        """
        self._cast_at_least_once(
            ctxt, '1.2', 'build_instances', retry,
            (exception.SchedulerUpgrading, exception.SchedulerNotListening,
             exception.BrokerUnavailable),
            'build of %s' % ', '.join(instance_uuids),
            spec_obj=spec_obj, instance_uuids=instance_uuids)

    def rebuild_instance(self, ctxt, instance_uuid, node_uuid, values,
                         retry=None):
        """Have a scheduler redeploy the node of a server being rebuilt
        (a node a nova-mini-conductor drives) and end the rebuild with
        ``values`` (the server's columns) when the node is active, or in
        ERROR. A cast.

        :raises nova_mini.exception.RebuildSchedulerUpgrading: capped
            below 1.3.
        :raises nova_mini.exception.RebuildBrokerUnavailable,
            RebuildSchedulerNotListening: as build_instances, in a
            rebuild's words.
        """
        self._cast_at_least_once(
            ctxt, '1.3', 'rebuild_instance', retry,
            (exception.RebuildSchedulerUpgrading,
             exception.RebuildSchedulerNotListening,
             exception.RebuildBrokerUnavailable),
            'rebuild of %s' % instance_uuid,
            instance_uuid=instance_uuid, node_uuid=node_uuid, values=values)

    def power_instance(self, ctxt, instance_uuid, node_uuid, action,
                       task_state, target, event, end, retry=None):
        """Have a scheduler run the power action ``action`` the API
        started on a server whose node a nova-mini-conductor drives
        (``target``: a key of states.POWER_TARGETS) and end its task
        ``task_state`` with ``end`` (the server's columns) once the BMC
        reached it, or with the fault. A cast.

        :raises nova_mini.exception.PowerSchedulerUpgrading: capped below
            1.4.
        :raises nova_mini.exception.PowerBrokerUnavailable,
            PowerSchedulerNotListening: as build_instances, in a power
            action's words.
        """
        self._cast_at_least_once(
            ctxt, '1.4', 'power_instance', retry,
            (exception.PowerSchedulerUpgrading,
             exception.PowerSchedulerNotListening,
             exception.PowerBrokerUnavailable),
            '%s of %s' % (action, instance_uuid),
            instance_uuid=instance_uuid, node_uuid=node_uuid, action=action,
            task_state=task_state, target=target, event=event, end=end)
