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

"""CoreFilter, RamFilter, DiskFilter: the node is big enough.

A bare-metal node is taken whole, so its size is only a lower bound:
``properties`` ``cpus``, ``memory_mb`` and ``local_gb`` against the
request's VCPU, MEMORY_MB and DISK_GB (a flavor that zeroes them with
``resources:VCPU=0`` etc. passes on any node).
"""

from nova_mini.scheduler import filters


class _ResourceFilter(filters.BaseNodeFilter):
    resource_class = None
    property_name = None

    def check(self, node, spec_obj):
        wanted = spec_obj.resources.get(self.resource_class, 0)
        has = getattr(node, self.property_name)
        if wanted > has:
            return '%s %d wanted, node has %s %d' % (
                self.resource_class, wanted, self.property_name, has)
        return None


class CoreFilter(_ResourceFilter):
    resource_class = 'VCPU'
    property_name = 'cpus'


class RamFilter(_ResourceFilter):
    resource_class = 'MEMORY_MB'
    property_name = 'memory_mb'


class DiskFilter(_ResourceFilter):
    resource_class = 'DISK_GB'
    property_name = 'local_gb'
