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

"""The conductor the API shows for a node (its ``conductor`` field) and
the nodes of one conductor (the ``conductor`` node list filter).

- A node of a hardware type nova-mini-conductor drives (redfish): the
  host the hash ring gives it (nova_mini.conductor.hash_ring, the one
  its RPC calls go to), None while no alive conductor drives its type in
  its conductor group.
- A node of another hardware type (fake-hardware, driven by nova-mini-api
  in its requests): one of the alive conductors registered for that type,
  by the node's id modulo their number (objects.baremetal.conductor
  conductor_for); never a conductor registered for other types only.

A page of nodes costs one read of the registry (and the hash ring's
copy); the filter one more query of the ring-driven nodes' ids and uuids
when the conductor is a ring member, the ring computed in Python.
"""

import collections

from nova_mini.conductor import drivers
from nova_mini.conductor import hash_ring
from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import conductor as conductor_obj

_NODES = models.Node.__table__

# What the hash ring needs of a node.
_RingNode = collections.namedtuple('_RingNode',
                                   ['uuid', 'driver', 'conductor_group'])


def ring_driven(driver):
    """Whether the nodes of hardware type ``driver`` are driven by
    nova-mini-conductor through the hash ring.
    """
    return driver in drivers.REAL_HARDWARE_TYPES


def _alive_by_driver(context):
    """``{hardware type: sorted hostnames}`` of the alive conductors."""
    found = {}
    for row in conductor_obj.get_all(context):
        if conductor_obj.is_alive(row):
            for driver in row.drivers or []:
                found.setdefault(driver, []).append(row.hostname)
    return {driver: sorted(hosts) for driver, hosts in found.items()}


class NodeConductors(object):
    """The conductors of the nodes of one request (the registry read
    once, on first use).

    :param context: the request context.
    """

    def __init__(self, context):
        self.context = context
        self._alive = None
        # The hash ring is rebuilt on the request's first miss only.
        self._rebuilt = False

    def _hosts(self, driver):
        if self._alive is None:
            self._alive = _alive_by_driver(self.context)
        return self._alive.get(driver, [])

    def host(self, node):
        """The conductor of ``node`` (``id``, ``uuid``, ``driver``,
        ``conductor_group``), or None.
        """
        if ring_driven(node.driver):
            try:
                return hash_ring.host_for(self.context, node,
                                          rebuild=not self._rebuilt)
            except exception_baremetal.NoValidConductor:
                self._rebuilt = True
                return None
        return conductor_obj.conductor_for(node.id,
                                           self._hosts(node.driver))

    def nodes_of(self, hostname):
        """The ``conductor_nodes`` node filter (objects.baremetal
        node_filters) of the nodes of ``hostname``, or None if it has
        none (not alive).
        """
        slots = []
        ring_types = []
        for driver in self._alive_types(hostname):
            if ring_driven(driver):
                ring_types.append(driver)
            else:
                hosts = self._hosts(driver)
                slots.append((driver, hosts.index(hostname), len(hosts)))
        ids = _ring_nodes_of(self.context, hostname, ring_types)
        if not slots and not ids:
            return None
        return {'slots': slots, 'ids': ids}

    def _alive_types(self, hostname):
        self._hosts(None)
        return sorted(driver for driver, hosts in self._alive.items()
                      if hostname in hosts)


@db_api.context_manager.reader
def _ring_nodes_of(context, hostname, types):
    """The ids of the nodes of hardware types ``types`` the hash ring
    gives to ``hostname`` (sorted).
    """
    if not types:
        return []
    rows = context.session.execute(
        _NODES.select().with_only_columns(
            _NODES.c.id, _NODES.c.uuid, _NODES.c.driver,
            _NODES.c.conductor_group).where(_NODES.c.driver.in_(types)))
    ids = []
    rebuilt = False
    for row in rows:
        try:
            host = hash_ring.host_for(context, _RingNode(
                row.uuid, row.driver, row.conductor_group),
                rebuild=not rebuilt)
        except exception_baremetal.NoValidConductor:
            # (Rebuilt on the first miss only.)
            rebuilt = True
            continue
        if host == hostname:
            ids.append(row.id)
    return sorted(ids)
