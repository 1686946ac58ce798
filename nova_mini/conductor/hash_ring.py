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

"""Which nova-mini-conductor drives a node: a consistent hash ring of the
alive conductors of the node's hardware type and conductor group, as
Ironic's (tooz's HashRing, the one Ironic uses; no coordination service:
the conductors registry in the database is the membership).

Each conductor owns ``2 ** [DEFAULT] hash_partition_exponent`` partitions
of the ring; a node goes to the owner of the partition its uuid hashes
to. A conductor joining or leaving moves only the nodes of the partitions
it gains or loses: the others keep their conductor. Every service builds
the same ring from the same registry, so the API and the conductors agree
on a node's conductor (for as long as their copies, refreshed every
``[DEFAULT] hash_ring_reset_interval`` seconds, are of the same
registry).
"""

import threading
import time

from oslo_log import log as logging
from tooz import hashring

from nova_mini import conf
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import conductor as conductor_obj

LOG = logging.getLogger(__name__)


def _alive_members(context):
    """``{(hardware type, conductor group): [hostnames]}`` of the alive
    conductors, from the registry.
    """
    members = {}
    for row in conductor_obj.get_all(context):
        if not conductor_obj.is_alive(row):
            continue
        for driver in row.drivers or []:
            members.setdefault((driver, row.conductor_group or ''),
                               []).append(row.hostname)
    return members


class HashRingManager(object):
    """The hash rings of this process, rebuilt from the registry when they
    are older than ``[DEFAULT] hash_ring_reset_interval`` seconds.

    :param conf: the ConfigOpts.
    :param clock: a monotonic clock (seconds).
    """

    def __init__(self, conf=conf.CONF, clock=time.monotonic):
        self.conf = conf
        self._clock = clock
        self._lock = threading.Lock()
        self._rings = None
        self._built_at = None

    def reset(self):
        """Forget the rings: the next look-up reads the registry."""
        with self._lock:
            self._rings = None

    def rings(self, context):
        """Return ``{(hardware type, conductor group): HashRing}``."""
        with self._lock:
            now = self._clock()
            if (self._rings is None or now - self._built_at >=
                    self.conf.hash_ring_reset_interval):
                partitions = 2 ** self.conf.hash_partition_exponent
                self._rings = {
                    key: hashring.HashRing(hosts, partitions=partitions)
                    for key, hosts in _alive_members(context).items()}
                self._built_at = now
                LOG.debug('Hash rings rebuilt: %s', {
                    '%s:%s' % key: len(ring.nodes)
                    for key, ring in self._rings.items()})
            return self._rings

    def hosts_for_driver(self, context, driver, group=''):
        """Return the sorted hosts of the ring of ``driver`` and
        ``group`` (empty if none is alive).
        """
        ring = self.rings(context).get((driver, group or ''))
        return sorted(ring.nodes) if ring is not None else []

    def host_for(self, context, node, rebuild=True):
        """Return the host of the conductor driving ``node``.

        A miss rebuilds the rings from the registry once before it is
        answered (as Ironic's), so that a conductor that has just
        registered is found at once, whatever the age of the copy.

        :param node: a Node (``uuid``, ``driver``, ``conductor_group``).
        :param rebuild: whether a miss rebuilds the rings (False: a
            caller looking up many nodes that has rebuilt them already).
        :raises nova_mini.exception_baremetal.NoValidConductor: no alive
            conductor drives its hardware type in its group.
        """
        group = node.conductor_group or ''
        key = (node.driver, group)
        ring = self.rings(context).get(key)
        if ring is None and rebuild:
            LOG.debug('No conductor for driver %s in group "%s": '
                      'rebuilding the hash rings', node.driver, group)
            self.reset()
            ring = self.rings(context).get(key)
        if ring is None:
            raise exception_baremetal.NoValidConductor(driver=node.driver,
                                                       group=group)
        (host,) = ring.get_nodes(node.uuid.encode('utf-8'))
        return host

    def owns(self, context, node, host):
        """Whether the conductor ``host`` drives ``node``, by the rings as
        they are: a miss does not rebuild them (a periodic pass looks up
        every node, and a node of a group without conductor would rebuild
        them at each one).

        :returns: False as well when no conductor drives it or the look-up
            fails.
        """
        try:
            return self.host_for(context, node, rebuild=False) == host
        except Exception:
            return False


_MANAGER = HashRingManager()


def host_for(context, node, rebuild=True):
    """The host of the conductor driving ``node``, from this process's
    rings (see HashRingManager.host_for).
    """
    return _MANAGER.host_for(context, node, rebuild=rebuild)


def reset():
    """Forget this process's rings (a conductor that has just registered
    or left reads the registry on its next look-up).
    """
    _MANAGER.reset()
