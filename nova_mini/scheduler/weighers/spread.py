"""RandomWeigher: a random weight, to spread instances over equally good
nodes (and keep concurrent schedulers from racing for the same one).
"""

import random

from nova_mini.scheduler import weighers


class RandomWeigher(weighers.BaseWeigher):
    multiplier_option = 'random_weight_multiplier'

    def __init__(self):
        self._random = random.SystemRandom()

    def weigh(self, node, spec_obj):
        return self._random.random()
