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

"""Versioned objects shared by every nova_mini daemon."""


def register_all():
    """Register every object class (importing a module registers the
    objects it defines), so that each is reachable as
    ``nova_mini.objects.<Name>``.
    """
    __import__('nova_mini.objects.flavor')
    __import__('nova_mini.objects.node_trait')
    __import__('nova_mini.objects.node')
    __import__('nova_mini.objects.chassis')
    __import__('nova_mini.objects.allocation')
    __import__('nova_mini.objects.deploy_template')
    __import__('nova_mini.objects.port')
    __import__('nova_mini.objects.portgroup')
    __import__('nova_mini.objects.volume_connector')
    __import__('nova_mini.objects.volume_target')
    __import__('nova_mini.objects.image_meta')
    __import__('nova_mini.objects.request_spec')
    __import__('nova_mini.objects.selection')
    __import__('nova_mini.objects.instance')
    __import__('nova_mini.objects.instance_list')
    __import__('nova_mini.objects.server_group')
    __import__('nova_mini.objects.keypair')
