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

"""What the APIs never show: the mask, and which names hold secrets (those
oslo.utils knows, and the bare-metal ones it does not). Node bodies and
validation messages both mask by these.
"""

from oslo_utils import strutils

MASK = '******'
# driver_info keys masked besides those oslo.utils knows as secrets; the
# secrets of nova_mini's drivers are named here whether oslo.utils knows
# them or not (the redfish driver's: drivers/redfish/driver_info.py
# SECRET_KEYS).
DRIVER_SECRETS = ('snmp_auth_key', 'snmp_priv_key', 'redfish_password')
# instance_info keys masked whatever their value.
INSTANCE_SECRETS = ('configdrive', 'image_url')


def is_secret_key(key):
    """Whether oslo.utils takes ``key`` for the name of a secret."""
    return strutils.mask_dict_password({key: 0}, MASK)[key] == MASK
