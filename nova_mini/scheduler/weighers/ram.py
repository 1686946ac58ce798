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

"""RAMWeigher: prefer nodes with more memory (or less, if negative)."""

from nova_mini.db import models
from nova_mini.scheduler import weighers


class RAMWeigher(weighers.BaseWeigher):
    multiplier_option = 'ram_weight_multiplier'
    sql_key = models.Node.__table__.c.memory_mb

    def weigh(self, node, spec_obj):
        return node.memory_mb
