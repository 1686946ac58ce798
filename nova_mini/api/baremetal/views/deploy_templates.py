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

"""How deploy templates look in bare-metal API responses (from 1.55):
secrets in the steps' arguments are masked, as Ironic's.
"""

from oslo_utils import strutils

from nova_mini.api.baremetal.views import base

MASK = '******'


def masked_args(args):
    """Return a step's ``args`` with their secrets replaced by
    ``******`` (as oslo.utils' ``mask_dict_password`` finds them).
    """
    return strutils.mask_dict_password(args, MASK)


class DeployTemplateView(base.ResourceView):
    COLLECTION = 'deploy_templates'
    FIELDS = ('uuid', 'name', 'steps', 'extra', 'created_at', 'updated_at')
    BRIEF_FIELDS = ('uuid', 'name')

    def value(self, item, name):
        if name == 'steps':
            return [dict(step, args=masked_args(step['args']))
                    for step in item.steps]
        return super().value(item, name)
