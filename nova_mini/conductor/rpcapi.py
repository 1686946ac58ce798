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

"""Client side of the nova-mini-conductor RPC API: calls on topic
``nova-mini-conductor``, to the server the hash ring maps the node to.

API version history:

* 1.0 - Initial version: ``ping``, ``change_node_power_state``,
  ``get_boot_device``, ``set_boot_device``,
  ``get_supported_boot_devices``, ``get_sensors_data``,
  ``validate_driver_interfaces``, ``do_node_deploy``,
  ``do_node_tear_down``, ``do_provisioning_action`` (manage, provide).
* 1.1 - ``get_supported_indicators``, ``get_indicator_state``,
  ``set_indicator_state``.
* 1.2 - ``do_node_tear_down`` takes ``instance_uuid``: the instance the
  node must still hold, checked under its reservation (a pin below 1.2
  sends the tear down without it).
* 1.3 - ``do_provisioning_action`` runs ``adopt``: the node's interfaces
  validated and its power state read from the BMC (``adopting``, then
  ``active`` or ``adopt failed``). A pin below 1.3 sends no adoption.
"""

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_mini.conductor import hash_ring
from nova_mini import conf
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini import rpc
from nova_mini import states

CONF = conf.CONF
LOG = logging.getLogger(__name__)

TOPIC = 'nova-mini-conductor'
VERSION = '1.3'


class ConductorAPI(object):
    """Calls to the conductor of each node, capped by ``[upgrade_levels]
    conductor``.

    :param conf: the ConfigOpts.
    :param ring: the HashRingManager choosing a node's conductor (None:
        this process's).
    """

    def __init__(self, conf=CONF, ring=None):
        target = messaging.Target(topic=TOPIC, version=VERSION)
        self.cap = conf.upgrade_levels.conductor
        self.client = rpc.get_client(conf, target, version_cap=self.cap)
        self.ring = ring or hash_ring._MANAGER

    def host_for(self, ctxt, node):
        """The host of the conductor driving ``node``.

        :raises nova_mini.exception_baremetal.NoValidConductor: none is
            alive for its hardware type.
        """
        return self.ring.host_for(ctxt, node)

    def _call(self, ctxt, node, version, method, call_timeout=None,
              **kwargs):
        # The pin first: a request it refuses reads nothing else.
        if not self.client.can_send_version(version):
            raise exception.RPCVersionCapped(api='conductor',
                                             version=version, cap=self.cap)
        host = self.host_for(ctxt, node)
        cctxt = self.client.prepare(server=host, version=version,
                                    timeout=call_timeout)
        try:
            return cctxt.call(ctxt, method, node_id=node.uuid, **kwargs)
        except messaging.MessagingTimeout:
            LOG.warning('Conductor %s did not answer %s for node %s',
                        host, method, node.uuid)
            raise exception_baremetal.ConductorNotResponding(
                host=host, retry_after=rpc.BROKER_RETRY_AFTER)
        except rpc.SEND_FAILURES as exc:
            LOG.warning('%s for node %s could not be sent to %s: %s',
                        method, node.uuid, host, exc)
            raise exception.ServiceUnavailable(
                retry_after=rpc.BROKER_RETRY_AFTER)

    def ping(self, ctxt, host, timeout=None):
        """Ask the conductor ``host`` for its host, versions and work
        in progress.
        """
        cctxt = self.client.prepare(server=host, version='1.0',
                                    timeout=timeout)
        return cctxt.call(ctxt, 'ping')

    def change_node_power_state(self, ctxt, node, target, timeout=None):
        """Start a power change of ``node`` (a Node) to ``target``
        (power on, power off, rebooting, soft power off, soft rebooting);
        ``timeout``: seconds for the BMC (None: the driver's default).

        :raises nova_mini.exception_baremetal.NodeLocked: another
            operation holds the node (409).
        :raises nova_mini.exception_baremetal.NoFreeConductorWorker: its
            conductor is busy (503).
        :raises nova_mini.exception_baremetal.NoValidConductor: no alive
            conductor drives it (404).
        """
        return self._call(ctxt, node, '1.0', 'change_node_power_state',
                          target=target, timeout=timeout)

    def get_boot_device(self, ctxt, node):
        """Return ``{'boot_device', 'persistent'}`` of ``node``."""
        return self._call(ctxt, node, '1.0', 'get_boot_device')

    def set_boot_device(self, ctxt, node, device, persistent=False):
        """Set the boot device of ``node`` (NodeLocked if reserved)."""
        return self._call(ctxt, node, '1.0', 'set_boot_device',
                          device=device, persistent=persistent)

    def get_supported_boot_devices(self, ctxt, node):
        """Return the boot devices ``node``'s BMC offers."""
        return self._call(ctxt, node, '1.0', 'get_supported_boot_devices')

    def get_sensors_data(self, ctxt, node):
        """Return ``node``'s sensors (a dict)."""
        return self._call(ctxt, node, '1.0', 'get_sensors_data')

    def validate_driver_interfaces(self, ctxt, node):
        """Return ``{interface: {'result': bool, 'reason': text}}``."""
        return self._call(ctxt, node, '1.0', 'validate_driver_interfaces')

    def do_node_deploy(self, ctxt, node, instance_uuid, configdrive=None):
        """Start the deploy of ``node``, claimed by ``instance_uuid``
        (``deploying``, then ``active`` or ``deploy failed``).
        """
        return self._call(ctxt, node, '1.0', 'do_node_deploy',
                          instance_uuid=instance_uuid,
                          configdrive=configdrive)

    def do_node_tear_down(self, ctxt, node, instance_uuid=None,
                          call_timeout=None):
        """Start the tear down of ``node`` (``deleting``, then
        ``available`` or ``error``).

        :param instance_uuid: the instance the node must still hold
            (NodeClaimLost otherwise; None: whichever). Sent from 1.2; a
            pin below sends the tear down without it.
        :param call_timeout: seconds to wait for the conductor's answer
            (None: ``[DEFAULT] rpc_response_timeout``);
            ConductorNotResponding past it.
        """
        if instance_uuid is not None and self.client.can_send_version(
                '1.2'):
            return self._call(ctxt, node, '1.2', 'do_node_tear_down',
                              call_timeout=call_timeout,
                              instance_uuid=instance_uuid)
        return self._call(ctxt, node, '1.0', 'do_node_tear_down',
                          call_timeout=call_timeout)

    def do_provisioning_action(self, ctxt, node, action):
        """``manage``, ``provide`` or (from 1.3) ``adopt`` ``node``.

        :raises nova_mini.exception.RPCVersionCapped: ``adopt`` with
            ``[upgrade_levels] conductor`` below 1.3 (an older conductor
            does not adopt).
        """
        version = '1.3' if action == states.ADOPT else '1.0'
        return self._call(ctxt, node, version, 'do_provisioning_action',
                          action=action)

    def get_supported_indicators(self, ctxt, node, component=None):
        """Return ``{component: {indicator: {'readonly', 'states'}}}`` of
        ``node``'s BMC (only ``component``'s if given).

        :raises nova_mini.exception.RPCVersionCapped: ``[upgrade_levels]
            conductor`` is below 1.1.
        """
        return self._call(ctxt, node, '1.1', 'get_supported_indicators',
                          component=component)

    def get_indicator_state(self, ctxt, node, component, indicator):
        """Return the state (ON, OFF, BLINKING, UNKNOWN) of ``node``'s
        indicator ``indicator`` of ``component``.
        """
        return self._call(ctxt, node, '1.1', 'get_indicator_state',
                          component=component, indicator=indicator)

    def set_indicator_state(self, ctxt, node, component, indicator, state):
        """Set ``node``'s indicator ``indicator`` of ``component`` to
        ``state`` (NodeLocked if the node is reserved).
        """
        return self._call(ctxt, node, '1.1', 'set_indicator_state',
                          component=component, indicator=indicator,
                          state=state)
