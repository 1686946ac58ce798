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

"""Options of the [quota] group: the limits nova_mini enforces, with
Nova's names and defaults."""

from oslo_config import cfg

quota_group = cfg.OptGroup('quota', title='Quota options',
                           help='Limits of what a project may create.')

quota_opts = [
    cfg.IntOpt('instances', default=10, min=-1,
               help='Servers a project may have; -1: no limit. A boot '
                    'that would take the project past it boots fewer '
                    'servers when its min_count still fits, and otherwise '
                    'answers 403 "Quota exceeded for instances: ...". '
                    'An administrator may set another limit for one '
                    'project (PUT /os-quota-sets/{project_id}).'),
    cfg.IntOpt('cores', default=20, min=-1,
               help='Sum of the vcpus of the flavors of a project\'s '
                    'servers; -1: no limit. Counted and refused as '
                    '"instances" is.'),
    cfg.IntOpt('ram', default=50 * 1024, min=-1,
               help='Sum of the memory_mb (MiB) of the flavors of a '
                    'project\'s servers; -1: no limit. Counted and refused '
                    'as "instances" is.'),
    cfg.IntOpt('server_groups', default=10, min=-1,
               help='Server groups a project may have; -1: no limit. A '
                    'create past it answers 403 "Quota exceeded, too many '
                    'server groups.".'),
    cfg.IntOpt('server_group_members', default=10, min=-1,
               help='Servers one server group may hold; -1: no limit. A '
                    'server create that would put more servers into the '
                    'group of its "group" hint answers 403 "Quota '
                    'exceeded, too many servers in group".'),
    cfg.IntOpt('key_pairs', default=100, min=-1,
               help='Key pairs a user may have; -1: no limit. A create '
                    'past it answers 403 "Quota exceeded, too many key '
                    'pairs.".'),
]


def register_opts(conf):
    conf.register_group(quota_group)
    conf.register_opts(quota_opts, group=quota_group)


def list_opts():
    return {quota_group: quota_opts}
