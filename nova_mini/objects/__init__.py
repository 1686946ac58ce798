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

"""Versioned objects. Here, what every daemon shares on the wire (base,
fields, RequestSpec and its request groups, ImageMeta, Selection); the
compute objects in ``compute/``, the bare-metal ones in ``baremetal/``.
"""


def register_all():
    """Register every object class (importing a module registers the
    objects it defines), so that each is reachable as
    ``nova_mini.objects.<Name>``.
    """
    __import__('nova_mini.objects.compute.flavor')
    __import__('nova_mini.objects.baremetal.node_trait')
    __import__('nova_mini.objects.baremetal.node')
    __import__('nova_mini.objects.baremetal.node_list')
    __import__('nova_mini.objects.baremetal.chassis')
    __import__('nova_mini.objects.baremetal.allocation')
    __import__('nova_mini.objects.baremetal.deploy_template')
    __import__('nova_mini.objects.baremetal.port')
    __import__('nova_mini.objects.baremetal.portgroup')
    __import__('nova_mini.objects.baremetal.volume_connector')
    __import__('nova_mini.objects.baremetal.volume_target')
    __import__('nova_mini.objects.image_meta')
    __import__('nova_mini.objects.request_spec')
    __import__('nova_mini.objects.selection')
    __import__('nova_mini.objects.compute.instance')
    __import__('nova_mini.objects.compute.instance_list')
    __import__('nova_mini.objects.compute.server_group')
    __import__('nova_mini.objects.compute.keypair')
