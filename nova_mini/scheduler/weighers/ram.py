"""RAMWeigher: prefer nodes with more memory (or less, if negative)."""

from nova_mini.db import models
from nova_mini.scheduler import weighers


class RAMWeigher(weighers.BaseWeigher):
    multiplier_option = 'ram_weight_multiplier'
    sql_key = models.Node.__table__.c.memory_mb

    def weigh(self, node, spec_obj):
        return node.memory_mb
