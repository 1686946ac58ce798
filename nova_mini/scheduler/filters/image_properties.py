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
