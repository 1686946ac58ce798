"""ImagePropertiesFilter: the node runs the image's architecture."""

from nova_mini.scheduler import filters


class ImagePropertiesFilter(filters.BaseNodeFilter):
    """An image asking for an architecture (``hw_architecture`` or
    ``cpu_arch``) needs a node whose ``properties['cpu_arch']`` is that
    one; an image asking for none fits every node.
    """

    def check(self, node, spec_obj):
        wanted = spec_obj.image.properties.architecture
        if wanted is None:
            return None
        has = node.cpu_arch
        if has is None or has.lower() != wanted.lower():
            return 'architecture %s wanted, node has %s' % (wanted, has)
        return None
