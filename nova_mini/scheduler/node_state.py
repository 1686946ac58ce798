"""NodeState: a candidate node as filters and weighers see it."""


def _int(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


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
    """The scheduler's read-only view of one candidate node."""

    __slots__ = ('id', 'uuid', 'name', 'resource_class', 'properties',
                 'traits', '_capabilities')

    def __init__(self, id, uuid, name, resource_class, properties,
                 traits=None):
        self.id = id
        self.uuid = uuid
        self.name = name
        self.resource_class = resource_class
        self.properties = properties or {}
        # None: not loaded (no enabled filter needs them).
        self.traits = None if traits is None else frozenset(traits)
        self._capabilities = None

    @property
    def cpus(self):
        return _int(self.properties.get('cpus'))

    @property
    def memory_mb(self):
        return _int(self.properties.get('memory_mb'))

    @property
    def local_gb(self):
        return _int(self.properties.get('local_gb'))

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
