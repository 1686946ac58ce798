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

"""ImagePropertiesFilter: the node runs what the image asks for, as
Nova's filter of that name decides it for an Ironic node.

The image may ask for an architecture (``hw_architecture``, or
``cpu_arch``), a virtualization type (``img_hv_type``), a VM mode
(``hw_vm_mode``) and a hypervisor version (``img_hv_requested_version``),
Nova's typed fields of the image (at boot and rebuild the image property
registry's reading, ``ImageMetaProps.from_typed``), canonical already. A
bare-metal node supports one kind of instance: its ``cpu_arch`` (canonical), ``baremetal``, ``hvm``
(``NodeState.supported_instances``), at hypervisor version 1. An image
asking for none of them fits every node; one asking for any fits only a
node whose supported instance has each value asked for, and whose version
satisfies the predicate.
"""

from oslo_utils import versionutils

from nova_mini.scheduler import filters
from nova_mini.scheduler import node_state


def _wanted(spec_obj):
    props = spec_obj.image.properties
    return (props.architecture, props.get('img_hv_type'),
            props.get('hw_vm_mode'))


class ImagePropertiesFilter(filters.BaseNodeFilter):
    # A new image may ask for what the node does not run.
    run_on_rebuild = True

    def for_request(self, context, spec_obj):
        # An image asking for none of them fits every node: nothing to
        # check node by node.
        return self if any(_wanted(spec_obj)) else None

    def check(self, node, spec_obj):
        wanted = _wanted(spec_obj)
        if not any(wanted):
            return None
        supported = node.supported_instances
        if not supported:
            return 'image needs %s; node has no known cpu_arch (%s)' % (
                '/'.join(w for w in wanted if w), node.cpu_arch)
        version = spec_obj.image.properties.get('img_hv_requested_version')
        for instance in supported:
            if any(w and w != has for w, has in zip(wanted, instance)):
                continue
            if version and not versionutils.VersionPredicate(
                    version).satisfied_by(
                        str(node_state.HYPERVISOR_VERSION)):
                return ('image needs hypervisor version %s, node has %s'
                        % (version, node_state.HYPERVISOR_VERSION))
            return None
        return 'image needs %s, node runs %s' % (
            '/'.join(w or '*' for w in wanted), '/'.join(supported[0]))
