"""RAMWeigher: prefer nodes with more memory (or less, if negative)."""

from nova_mini.scheduler import weighers


class RAMWeigher(weighers.BaseWeigher):
    multiplier_option = 'ram_weight_multiplier'

    def weigh(self, node, spec_obj):
        return node.memory_mb
