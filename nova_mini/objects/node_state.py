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

"""NodeState: a candidate node row as the scheduler's filters and weighers
see it (built by objects.node_candidates)."""


def parse_capabilities(text):
    """``"k:v,k2:v2"`` (Ironic's ``properties['capabilities']``) as a dict;
    a dict is taken as is. Malformed entries are skipped.
    """
    if isinstance(text, dict):
        return {str(k): str(v) for k, v in text.items()}
    result = {}
    for item in (text or '').split(','):
        key, sep, value = item.partition(':')
        if sep and key.strip():
            result[key.strip()] = value.strip()
    return result


class NodeState(object):
    """The scheduler's read-only view of one candidate node.

    ``cpus``, ``memory_mb`` and ``local_gb`` are the node's capacity
    columns (objects.node.capacity_of), the numbers the database compared
    with the request, so filters and the SQL agree.
    """

    __slots__ = ('id', 'uuid', 'name', 'resource_class', 'properties',
                 'cpus', 'memory_mb', 'local_gb', 'traits', '_capabilities')

    def __init__(self, id, uuid, name, resource_class, properties,
                 cpus=0, memory_mb=0, local_gb=0, traits=None):
        self.id = id
        self.uuid = uuid
        self.name = name
        self.resource_class = resource_class
        self.properties = properties or {}
        self.cpus = cpus
        self.memory_mb = memory_mb
        self.local_gb = local_gb
        # None: not loaded (no enabled filter needs them).
        self.traits = None if traits is None else frozenset(traits)
        self._capabilities = None

    @property
    def cpu_arch(self):
        return self.properties.get('cpu_arch')

    @property
    def capabilities(self):
        if self._capabilities is None:
            self._capabilities = parse_capabilities(
                self.properties.get('capabilities'))
        return self._capabilities

    def __repr__(self):
        return '<NodeState %s (%s)>' % (self.uuid, self.name)
