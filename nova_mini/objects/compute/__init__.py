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

"""The compute objects, each module with its statements.

Flavors: ``flavor`` (Flavor, FlavorList and the flavor list read for
display), ``flavor_access`` (who may see a flavor: public ones and those
shared with a project), ``flavor_extra_specs`` (a flavor's extra specs in
the database; what they may hold is checked by the API's registry,
``nova_mini.api.validation.extra_specs``).

Servers: ``instance`` (Instance, with the flavor it embeds, a snapshot
taken at boot), ``instance_list`` and ``instance_filters`` (server lists
in SQL), ``instance_build`` (build states), ``instance_task`` (server
actions on the node), ``instance_metadata`` (metadata and tags),
``instance_action`` (the os-instance-actions records).

Others: ``keypair``, ``server_group`` (groups, members and their
quotas), ``quota`` and ``quota_recheck`` (limits, usage, the recount
after a create).

Every class here is registered by ``nova_mini.objects.register_all``;
the objects every daemon shares (RequestSpec, ImageMeta, Selection) stay
in ``nova_mini.objects``.
"""
