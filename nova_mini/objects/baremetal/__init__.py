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

"""The bare-metal objects, each module with its statements.

Resources: ``node`` and ``node_list`` (Node, NodeList; the list filters
in ``node_filters``), ``node_trait`` (a node's traits), ``node_interfaces``
(hardware types and their interfaces), ``port``, ``portgroup``,
``chassis``, ``allocation``, ``deploy_template``, ``volume_connector``
and ``volume_target`` (with ``node_volume``, what they share),
``bios_setting``, ``conductor`` (the conductors registry). The ones
stored as one row each build on ``db_row`` (DBRow); ``paging`` pages
their collections.

The state machine, as Ironic's conductor runs it with fake-hardware:
``node_provision`` (provision-state moves and claims, and the traits a
deploy needs) applies ``node_deploy`` and ``deploy_steps`` (deploy
steps), ``node_clean`` and ``clean_steps`` (cleaning), ``node_rescue``,
``node_inspect``; beside it ``node_power`` (power, console, boot
device), ``node_vifs``, ``node_raid``, ``node_indicators``,
``node_agent`` (the ramdisk agent's token) and ``node_allocation`` (the
node an allocation gets).

Every object class here is registered by
``nova_mini.objects.register_all``.
"""
