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

"""Options of the [glance] group: how the compute API reaches the Image
service (nova_mini.image).

They are keystoneauth1's adapter and session options, named as in every
OpenStack service: ``service_type``, ``valid_interfaces``,
``region_name``, ``endpoint_override``, ``timeout``, ``cafile``,
``certfile``, ``keyfile``, ``insecure``, ``connect_retries``, ...
The request's own token authenticates the call; the endpoint comes from
the token's service catalog unless ``endpoint_override`` names one.
"""

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

glance_group = cfg.OptGroup(
    'glance', title='Image service options',
    help='How nova-mini-api finds and calls the Image service (Glance) to '
         'check the image of a new server and read its properties: the '
         'endpoint is the caller\'s service catalog entry of type "image" '
         '(valid_interfaces, region_name), or endpoint_override; the call '
         'carries the caller\'s token. With [api] auth_strategy = noauth2 '
         'there is no Keystone token: images are then checked only when '
         'endpoint_override is set (called without a token), otherwise '
         'imageRef is taken as given.')

DEFAULT_SERVICE_TYPE = 'image'
DEFAULT_INTERFACES = ['internal', 'public']
DEFAULT_TIMEOUT = 30.0


def _opts():
    opts = (ks_loading.get_session_conf_options() +
            ks_loading.get_adapter_conf_options(include_deprecated=False))
    cfg.set_defaults(opts, service_type=DEFAULT_SERVICE_TYPE,
                     valid_interfaces=DEFAULT_INTERFACES,
                     timeout=DEFAULT_TIMEOUT)
    return opts


def register_opts(conf):
    conf.register_group(glance_group)
    conf.register_opts(_opts(), group=glance_group)


def list_opts():
    return {glance_group: _opts()}
